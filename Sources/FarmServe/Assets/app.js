// farm serve: the app's three screens, fed by server-sent events (/api/events), never by polling.
// Screens are addressed by the hash: #/ (lists), #/list/<id> (grid), #/list/<id>/view/<index> (viewer).
// Each event updates only the elements whose text or state changed.
"use strict";

const token = document.querySelector('meta[name="farm-token"]').content;
const $ = (id) => document.getElementById(id);
const state = { summary: null, list: null, route: { screen: "lists" }, events: null, eventsURL: "" };

// --- Talking to the server -------------------------------------------------------------------------

function listen(url) {
  if (state.eventsURL === url && state.events) return;
  if (state.events) state.events.close();
  state.eventsURL = url;
  const events = new EventSource(url);
  state.events = events;
  events.addEventListener("open", () => { $("offline").hidden = true; });
  events.addEventListener("error", () => { $("offline").hidden = false; });
  events.addEventListener("summary", (event) => renderSummary(JSON.parse(event.data)));
  events.addEventListener("list", (event) => renderList(JSON.parse(event.data)));
}

// A request that changes the farm: same origin, with the page's token; the answer is shown as a line.
async function post(path, body) {
  say("…");
  try {
    const response = await fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Farm-Token": token },
      body: JSON.stringify(body || {}),
    });
    const answer = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
    say(answer.error || answer.message, Boolean(answer.error));
    return !answer.error;
  } catch (error) {
    say(`farm serve did not answer: ${error.message}`, true);
    return false;
  }
}

function say(text, isError) {
  $("message").textContent = text || "";
  $("message").className = isError ? "error" : "";
}

// Sets a property only when it changes, so an event that changes nothing touches nothing.
function set(element, property, value) {
  if (element[property] !== value) element[property] = value;
}

// --- Screen 1: the lists ---------------------------------------------------------------------------

function renderSummary(summary) {
  state.summary = summary;
  set($("workers"), "textContent", `workers ${summary.workers.running}/${summary.workers.desired}`);
  $("paused").hidden = !summary.paused;
  // Paused by the disk: how short it is; no button ends that, freeing space does.
  const disk = summary.pausedBy === "disk" && summary.disk;
  set($("paused"), "textContent", disk ? `paused: disk ${size(disk.free)} free < ${size(disk.minFree)}` : "paused");
  const byUser = summary.paused && !disk;
  if (document.activeElement !== $("slider")) {
    set($("slider"), "value", String(summary.workers.desired));
    set($("slider-value"), "textContent", String(summary.workers.desired));
  }
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
    set(row.cells[1], "textContent", list.state);
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

function newListRow(list) {
  const row = document.createElement("tr");
  row.dataset.id = list.id;
  row.innerHTML = '<td class="name"><a></a></td><td class="state"></td>'
    + '<td><div class="bar"><span></span></div></td><td class="count"></td><td class="failed"></td>';
  row.cells[0].firstChild.href = `#/list/${list.id}`;
  row.addEventListener("click", () => { location.hash = `#/list/${list.id}`; });
  return row;
}

$("slider").addEventListener("input", () => { $("slider-value").textContent = $("slider").value; });
$("slider").addEventListener("change", () => post("/api/scale", { workers: Number($("slider").value) }));
$("pause").addEventListener("click", () => post("/api/pause"));
$("resume").addEventListener("click", () => post("/api/resume"));
$("reset").addEventListener("click", () => {
  if (confirm("Reset stops every process and deletes every list, job and downloaded file. Reset?")) post("/api/reset");
});
$("add").addEventListener("submit", async (event) => {
  event.preventDefault();
  if (await post("/api/add", { source: $("source").value })) $("source").value = "";
});

// --- Screen 2: the grid of one list ----------------------------------------------------------------

function renderList(list) {
  const route = state.route;
  if (!list) {
    if (route.list) { say("That list is no longer in the spool.", true); location.hash = "#/"; }
    return;
  }
  if (list.id !== route.list) return;
  state.list = list;
  set($("grid-title"), "textContent", list.name);
  set($("grid-state"), "textContent", `${list.state} — ${list.done}/${list.total} done, ${list.failed} failed`);
  const grid = $("grid");
  while (grid.children.length > list.resources.length) grid.lastChild.remove();
  list.resources.forEach((resource) => {
    const cell = grid.children[resource.index] || grid.appendChild(newCell(list.id, resource.index));
    set(cell, "className", resource.status);
    set(cell.querySelector(".cell-text"), "textContent", resource.text);
    cell.title = resource.error ? `${resource.url}\n${resource.error}` : resource.url;
    const frame = cell.querySelector(".thumb");
    // Gray while queued, downloading or failed; the thumbnail once done (a new one after a reload).
    const source = resource.status === "done" ? imageURL(list.id, resource, "thumb") : "";
    const image = frame.querySelector("img");
    if (!source && image) image.remove();
    if (source && (!image || image.dataset.source !== source)) {
      const fresh = image || frame.appendChild(document.createElement("img"));
      fresh.alt = `resource ${resource.index}`;
      fresh.dataset.source = source;
      fresh.src = source;
    }
  });
  if (route.screen === "viewer") renderViewer();
}

function newCell(id, index) {
  const cell = document.createElement("li");
  cell.innerHTML = '<a><div class="thumb"></div><p class="cell-text"></p></a>';
  cell.firstChild.href = `#/list/${id}/view/${index}`;
  return cell;
}

function imageURL(id, resource, kind) {
  // The change time names the version: a reloaded resource gets a new URL, so no stale cache.
  return `/api/lists/${id}/${resource.index}/${kind}?v=${encodeURIComponent(resource.changed || "")}`;
}

$("reload").addEventListener("click", () => post(`/api/lists/${state.route.list}/reload`));

// --- Screen 3: the viewer --------------------------------------------------------------------------

function renderViewer() {
  const list = state.list, index = state.route.index;
  if (!list || list.id !== state.route.list) return;
  const resource = list.resources[index];
  if (!resource) { location.hash = `#/list/${list.id}`; return; }
  const source = resource.status === "done" && resource.image ? imageURL(list.id, resource, "image") : "";
  const image = $("viewer-image");
  if (image.dataset.source !== source) {
    image.dataset.source = source;
    image.hidden = !source;
    if (source) image.src = source; else image.removeAttribute("src");
  }
  set($("viewer-frame"), "className", source ? "ready" : "");
  const text = resource.status === "error" ? `Error: ${resource.error}` : source ? "" : resource.text;
  set($("viewer-text"), "textContent", text);
  $("viewer-text").hidden = !text;
  set($("viewer-caption"), "textContent", `${index + 1} / ${list.total} — ${resource.url}`);
  set($("previous"), "disabled", index === 0);
  set($("next"), "disabled", index >= list.total - 1);
}

function step(delta) {
  const list = state.list, index = state.route.index + delta;
  if (list && index >= 0 && index < list.total) location.hash = `#/list/${list.id}/view/${index}`;
}

$("previous").addEventListener("click", () => step(-1));
$("next").addEventListener("click", () => step(1));
$("cancel").addEventListener("click", () => { location.hash = `#/list/${state.route.list}`; });
document.addEventListener("keydown", (event) => {
  if (state.route.screen !== "viewer") return;
  if (event.key === "ArrowLeft") step(-1);
  else if (event.key === "ArrowRight") step(1);
  else if (event.key === "Escape") $("cancel").click();
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
  if (state.route.list !== previous.list) {
    state.list = null;
    $("grid").replaceChildren();
    $("grid-title").textContent = "";
    $("grid-state").textContent = "";
  }
  listen(state.route.list ? `/api/events?list=${state.route.list}` : "/api/events");
  if (state.route.screen === "viewer") renderViewer();
}

window.addEventListener("hashchange", route);
route();
