// farm serve: the app's three screens, fed by server-sent events (/api/events), never by polling.
// Screens are addressed by the hash: #/ (lists), #/list/<id> (grid), #/list/<id>/view/<index> (viewer).
// Each event updates only the elements whose text or state changed. This file holds what the screens
// share, screen 1 and the routing; grid.js holds screen 2 and viewer.js screen 3 (loaded after this one).
"use strict";

const token = document.querySelector('meta[name="farm-token"]').content;
const $ = (id) => document.getElementById(id);
const state = { summary: null, route: { screen: "lists" }, events: null, eventsURL: "" };

// --- Talking to the server -------------------------------------------------------------------------

// One event stream at a time: the summary for every screen, and on screens 2 and 3 the part of the
// list they show (a window: the stream never carries a whole list).
function listen(url) {
  if (state.eventsURL === url && state.events) return;
  if (state.events) state.events.close();
  state.eventsURL = url;
  const events = new EventSource(url);
  state.events = events;
  events.addEventListener("open", () => { $("offline").hidden = true; });
  events.addEventListener("error", () => { $("offline").hidden = false; });
  events.addEventListener("summary", (event) => renderSummary(JSON.parse(event.data)));
  events.addEventListener("list", (event) => {
    if (events === state.events) renderList(JSON.parse(event.data));
  });
}

// A list's event stream following positions offset..offset+limit (of the matches of query, if any).
function listURL(id, offset, limit, query) {
  return `/api/events?list=${id}&offset=${offset}&limit=${limit}` + (query ? `&q=${encodeURIComponent(query)}` : "");
}

// A window of a list: GET /api/lists/<id>?offset&limit[&q]; null when the server refused (said on the page).
async function fetchWindow(id, offset, limit, query) {
  const path = `/api/lists/${id}?offset=${offset}&limit=${limit}` + (query ? `&q=${encodeURIComponent(query)}` : "");
  try {
    const response = await fetch(path, { headers: { Accept: "application/json" } });
    const answer = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
    if (answer.error) { say(answer.error, true); return null; }
    return answer;
  } catch (error) {
    say(`farm serve did not answer: ${error.message}`, true);
    return null;
  }
}

// A request that changes the farm (POST, or DELETE for a resource): same origin, with the page's token;
// the answer is shown as a line. True when the farm did it.
async function change(method, path, body) {
  say("…");
  try {
    const response = await fetch(path, {
      method,
      headers: { "Content-Type": "application/json", "X-Farm-Token": token },
      body: method === "DELETE" ? undefined : JSON.stringify(body || {}),
    });
    const answer = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
    say(answer.error || answer.message, Boolean(answer.error));
    return !answer.error;
  } catch (error) {
    say(`farm serve did not answer: ${error.message}`, true);
    return false;
  }
}

function post(path, body) { return change("POST", path, body); }

function say(text, isError) {
  $("message").textContent = text || "";
  $("message").className = isError ? "error" : "";
}

// Sets a property only when it changes, so an event that changes nothing touches nothing.
function set(element, property, value) {
  if (element[property] !== value) element[property] = value;
}

// A list's state as the screens show it: Held for a list held out of the workers' reach (farm get's ^C,
// aria2's pause of one download) that is not finished, else the status's state.
function shownState(list) {
  return list.held && list.state !== "Finished" ? "Held" : list.state;
}

// A list event: for the grid, or for the viewer; null once the list is gone.
function renderList(list) {
  if (!list) {
    if (state.route.list) { say("That list is no longer in the spool.", true); location.hash = "#/"; }
    return;
  }
  if (list.id !== state.route.list) return;
  if (state.route.screen === "viewer") viewerReceived(list); else gridReceived(list);
}

// --- Screen 1: the lists ---------------------------------------------------------------------------

// The concurrency in force, the number a user reads first (SPEC §13): "6 at once: 6 workers × 1", as farm
// status and farm top say it.
function concurrency(workers) {
  const phrase = `${workers.atOnce} at once: ${workers.running} worker${workers.running === 1 ? "" : "s"} × ${workers.transfers}`;
  return workers.running === workers.desired ? phrase : `${phrase} (${workers.desired} wanted)`;
}

function renderSummary(summary) {
  state.summary = summary;
  set($("workers"), "textContent", concurrency(summary.workers));
  $("paused").hidden = !summary.paused;
  // Paused by the disk: how short it is; no button ends that, freeing space does.
  const disk = summary.pausedBy === "disk" && summary.disk;
  set($("paused"), "textContent", disk ? `paused: disk ${size(disk.free)} free < ${size(disk.minFree)}` : "paused");
  const byUser = summary.paused && !disk;
  if (document.activeElement !== $("slider")) {
    set($("slider"), "value", String(summary.workers.desired));
    set($("slider-value"), "textContent", String(summary.workers.desired));
  }
  if (document.activeElement !== $("transfers")) set($("transfers"), "value", String(summary.workers.transfers));
  if (document.activeElement !== $("limit-rate")) set($("limit-rate"), "value", rate(summary.workers.limitRate));
  const busy = summary.lists.some((list) => list.state !== "Finished");
  set($("pause"), "disabled", !busy || byUser);
  set($("resume"), "disabled", !busy || !byUser);

  const body = $("lists").tBodies[0];
  const rows = new Map([...body.rows].map((row) => [row.dataset.id, row]));
  summary.lists.forEach((list, position) => {
    let row = rows.get(list.id);
    if (!row) row = newListRow(list);
    rows.delete(list.id);
    if (body.rows[position] !== row) body.insertBefore(row, body.rows[position] || null);
    set(row, "className", list.state === "Finished" ? "finished" : "");
    set(row.cells[0].firstChild, "textContent", list.name);
    set(row.cells[1], "textContent", shownState(list));
    set(row.querySelector(".bar span").style, "width", `${(list.progress * 100).toFixed(1)}%`);
    set(row.cells[3], "textContent", `${list.done}/${list.total}`);
    set(row.cells[4], "textContent", String(list.failed));
    set(row.cells[4], "className", list.failed > 0 ? "failed some" : "failed");
  });
  for (const row of rows.values()) row.remove();
  $("empty").hidden = summary.lists.length > 0;
}

// A size in binary units, as `farm status` gives the disk's: "6.0 MiB".
function size(bytes) {
  const units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
  let value = Math.max(0, bytes), unit = 0;
  while (value >= 1023.95 && unit < units.length - 1) { value /= 1024; unit += 1; }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${units[unit]}`;
}

// A bandwidth cap as `farm limit` takes it back: "2M", "500K", "1536"; empty for none.
function rate(bytes) {
  if (!bytes) return "";
  for (const [suffix, unit] of [["G", 1 << 30], ["M", 1 << 20], ["K", 1 << 10]]) {
    if (bytes % unit === 0) return `${bytes / unit}${suffix}`;
  }
  return String(bytes);
}

function newListRow(list) {
  const row = document.createElement("tr");
  row.dataset.id = list.id;
  row.innerHTML = '<td class="name"><a></a></td><td class="state"></td>'
    + '<td class="progress"><div class="bar"><span></span></div></td><td class="count"></td><td class="failed"></td>';
  row.cells[0].firstChild.href = `#/list/${list.id}`;
  row.addEventListener("click", () => { location.hash = `#/list/${list.id}`; });
  return row;
}

$("slider").addEventListener("input", () => { $("slider-value").textContent = $("slider").value; });
$("slider").addEventListener("change", () => post("/api/scale", { workers: Number($("slider").value) }));
$("transfers").addEventListener("change", () => post("/api/scale", { transfers: Number($("transfers").value) }));
$("limit-rate").addEventListener("change", () => post("/api/limit", { rate: $("limit-rate").value.trim() || "0" }));
$("pause").addEventListener("click", () => post("/api/pause"));
$("resume").addEventListener("click", () => post("/api/resume"));
$("reset").addEventListener("click", () => {
  if (confirm("Reset stops every process and deletes every list, job and downloaded file. Reset?")) post("/api/reset");
});
$("add").addEventListener("submit", async (event) => {
  event.preventDefault();
  if (await post("/api/add", { source: $("source").value })) $("source").value = "";
});

// --- Routing ---------------------------------------------------------------------------------------

function route() {
  const match = location.hash.match(/^#\/list\/([0-9a-f]{16})(?:\/view\/(\d+))?$/);
  const previous = state.route;
  state.route = match
    ? { screen: match[2] === undefined ? "grid" : "viewer", list: match[1], index: Number(match[2] || 0) }
    : { screen: "lists" };
  if (!match && location.hash && location.hash !== "#/") history.replaceState(null, "", "#/");
  $("lists-screen").hidden = state.route.screen !== "lists";
  $("grid-screen").hidden = state.route.screen === "lists";
  $("viewer").hidden = state.route.screen !== "viewer";
  if (state.route.list !== previous.list) openGrid(state.route.list);
  if (state.route.screen === "lists") listen("/api/events");
  else if (state.route.screen === "grid") showGrid();
  else openViewer();
}

window.addEventListener("hashchange", route);
// After grid.js and viewer.js (deferred scripts run in order, all before this event).
document.addEventListener("DOMContentLoaded", route);
