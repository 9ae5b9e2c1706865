// Screen 2: the grid of one list, at any size. The page holds the cells on screen and a screenful
// either side, never the list: the grid is sized for every position from the first answer (`total`,
// or `matched` for a search), windows of PAGE positions are fetched as they come near the screen
// (GET /api/lists/<id>?offset&limit[&q]) with a spinner below the last cell while one loads, and the
// event stream follows the windows on screen, so live changes arrive for what is shown.
//
// Positions run over the list (or over the matches of the search); a cell shows the resource at its
// position and is known by the resource's id, so that a resource that moves keeps its element (and
// slides to its new place: cells move by a CSS transition of their transform). Where each position is
// drawn is `layout`'s business alone.
//
// Editing (SPEC §9), outside a search: the last cell is "Add" (a URL, OK/Cancel); each cell has a
// delete button asking `Do you really want to delete the item with identifier ID?` (Yes/Cancel); a
// cell dragged onto another moves there (pointer events, so a mouse, a pen and a finger all drag).
// Each edit goes through the API; the grid shows the answer of the server, so a refused edit leaves
// it as it was and says why.
"use strict";

const PAGE = 100;
// The stream follows at most this many positions (the server's limit of a window).
const STREAM_LIMIT = 500;
// The most cells drawn at once, however tall the window: the screen's, and what room is left around it.
const MAX_CELLS = 400;
// Cells are at least this wide (px), with GAP between them.
const CELL_MIN = 140, GAP = 12;

// The grid of the open list: its windows by first position, what is being fetched, the search.
let grid = null;

function openGrid(id) {
  grid = id && {
    id, list: null, query: "", count: null, pages: new Map(), loading: new Set(), generation: 0,
    lines: { title: false, caption: false }, stream: null, streamTimer: 0, frame: 0, retry: 0,
  };
  $("grid").replaceChildren();
  $("grid").style.height = "0px";
  $("grid-title").textContent = "";
  $("grid-state").textContent = "";
  $("grid-count").textContent = "";
  $("search").value = "";
  $("list-header").hidden = true;
  renderHosts(null);
  if (id) fetchPage(0);
}

// Back on the grid (opened, or from the viewer): draw it and follow it.
function showGrid() {
  if (!grid) return;
  grid.stream = null;
  renderGrid();
}

// --- Layout: where each position is drawn ----------------------------------------------------------

// Columns of cells at least CELL_MIN wide filling the grid's width; a cell is its square thumbnail
// and its lines of text (the status, then the title and the caption when the list has them). Outside
// a search the first cell is twice the size of the others (two columns, two rows, as the app's
// collection editor has it), and the cells of its two rows fill the columns beside it.
function layout() {
  const width = $("grid").clientWidth;
  const columns = Math.max(1, Math.floor((width + GAP) / (CELL_MIN + GAP)));
  const cellWidth = (width - GAP * (columns - 1)) / columns;
  const rem = parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;
  const lines = 1 + (grid.lines.title ? 1 : 0) + (grid.lines.caption ? 1 : 0);
  const cellHeight = cellWidth + (0.25 + 1.25 * lines) * rem;
  const rowHeight = cellHeight + GAP;
  const big = !grid.query;
  const span = big ? Math.min(2, columns) : 1;
  // Cells beside the first one in each of its two rows; position 1 + 2 * beside starts row 2.
  const beside = big ? columns - span : 0;
  const at = (row, column) => ({
    x: column * (cellWidth + GAP), y: row * rowHeight, width: cellWidth, height: cellHeight,
  });
  return {
    columns, cellWidth, cellHeight,
    rect: (position) => {
      if (!big) return at(Math.floor(position / columns), position % columns);
      if (position === 0) {
        return { x: 0, y: 0, width: span * cellWidth + (span - 1) * GAP, height: 2 * cellHeight + GAP };
      }
      const q = position - 1;
      if (q < 2 * beside) return at(Math.floor(q / beside), span + (q % beside));
      const r = q - 2 * beside;
      return at(2 + Math.floor(r / columns), r % columns);
    },
    height: (count) => {
      if (!big) return Math.max(0, Math.ceil(count / columns) * rowHeight - GAP);
      if (count === 0) return 0;
      return (2 + Math.max(0, Math.ceil((count - 1 - 2 * beside) / columns))) * rowHeight - GAP;
    },
    // The positions whose cells meet the band from `top` to `bottom` (px from the grid's top).
    range: (top, bottom, count) => {
      const firstRow = Math.floor(top / rowHeight), lastRow = Math.ceil(bottom / rowHeight) - 1;
      if (!big) {
        return { first: Math.max(0, firstRow * columns), last: Math.min(count - 1, (lastRow + 1) * columns - 1) };
      }
      const first = firstRow <= 1 ? 0 : 1 + 2 * beside + (firstRow - 2) * columns;
      const last = lastRow < 0 ? -1 : lastRow <= 1 ? 2 * beside : 2 * beside + (lastRow - 1) * columns;
      return { first: Math.max(0, first), last: Math.min(count - 1, last) };
    },
  };
}

// --- Windows ---------------------------------------------------------------------------------------

function fetchPage(start) {
  if (grid.pages.has(start) || grid.loading.has(start) || Date.now() < grid.retry) return;
  const current = grid, generation = grid.generation;
  current.loading.add(start);
  fetchWindow(current.id, start, PAGE, current.query).then((list) => {
    if (grid !== current || current.generation !== generation) return;
    current.loading.delete(start);
    if (list) {
      take(list);
    } else {
      // Refused or unanswered (said on the page): asked again in a while, not in a loop.
      current.retry = Date.now() + 2000;
      setTimeout(renderGrid, 2100);
    }
    renderGrid();
  });
}

// A window from the server (an answer or an event): its resources by position, the counts and header.
// Windows start at a multiple of PAGE and span whole pages, so each page they cover is replaced whole.
function take(list) {
  grid.list = list;
  grid.count = list.matched !== undefined ? list.matched : list.total;
  const resources = list.resources || [];
  const end = Math.min(list.offset + list.limit, Math.max(grid.count, list.offset + 1));
  for (let page = list.offset; page < end; page += PAGE) {
    grid.pages.set(page, resources.slice(page - list.offset, page - list.offset + PAGE));
  }
  for (const resource of resources) {
    if (resource.title) grid.lines.title = true;
    if (resource.caption) grid.lines.caption = true;
  }
  renderHeader(list);
}

function resourceAt(position) {
  const page = grid.pages.get(Math.floor(position / PAGE) * PAGE);
  return page && page[position % PAGE];
}

function gridReceived(list) {
  const stream = grid && grid.stream;
  if (!stream || list.offset !== stream.offset || (list.query || "") !== normalized(grid.query)) return;
  take(list);
  renderGrid();
}

// A search as the server folds it, to tell the stream's windows of another search apart.
function normalized(query) { return query.trim().toLowerCase(); }

// --- Drawing ---------------------------------------------------------------------------------------

function renderHeader(list) {
  set($("grid-title"), "textContent", list.name);
  set($("grid-state"), "textContent", `${shownState(list)} — ${list.done}/${list.total} done, ${list.failed} failed`);
  set($("grid-count"), "textContent", list.matched === undefined ? "" : `${list.matched} of ${list.total} match`);
  $("list-header").hidden = !list.title && !list.cover;
  set($("list-title"), "textContent", list.title || "");
  renderHosts(list.hosts);
  // The cover is served by farm serve from the spool (`cover` is its path there, which names its version).
  const cover = $("list-cover");
  if ((cover.dataset.source || "") !== (list.cover || "")) {
    cover.dataset.source = list.cover || "";
    cover.hidden = !list.cover;
    if (list.cover) cover.src = `/api/lists/${list.id}/cover?v=${encodeURIComponent(list.cover)}`;
    else cover.removeAttribute("src");
  }
}

// A recursive list's counts per host (issue 64): every window the server sends (an answer or an event)
// carries them, counted once per summary, so the table follows the list as it grows. Rows are kept and
// only their changed cells written.
const HOST_COLUMNS = ["host", "found", "fetched", "active", "queued"];

function renderHosts(hosts) {
  const rows = hosts || [];
  $("hosts-frame").hidden = rows.length === 0;
  const body = $("hosts").tBodies[0];
  while (body.rows.length > rows.length) body.deleteRow(-1);
  rows.forEach((host, index) => {
    const row = body.rows[index] || body.insertRow();
    if (!row.cells.length) for (const key of HOST_COLUMNS) row.insertCell().className = key;
    HOST_COLUMNS.forEach((key, column) => set(row.cells[column], "textContent", String(host[key])));
  });
}

function scheduleRender() {
  if (!grid || grid.frame || state.route.screen !== "grid") return;
  grid.frame = requestAnimationFrame(() => { grid.frame = 0; renderGrid(); });
}

// Draws the cells near the screen (fetching the windows they need), drops the others.
function renderGrid() {
  if (!grid || state.route.screen === "lists") return;
  const element = $("grid"), shape = layout();
  const count = grid.count === null ? 0 : grid.count;
  // The Add cell follows the last resource, outside a search, once the list's size is known.
  const adding = !grid.query && grid.count !== null;
  set(element.style, "height", `${shape.height(count + (adding ? 1 : 0))}px`);
  const top = element.getBoundingClientRect().top;
  const screen = shape.range(-top, window.innerHeight - top, count);
  const near = around(screen, shape, top, count);
  for (let page = Math.floor(near.first / PAGE) * PAGE; page <= near.last; page += PAGE) fetchPage(page);
  dropFarPages(near);

  const cells = new Map([...element.children].map((cell) => [cell.dataset.key, cell]));
  const shown = [], keys = new Set();
  // The first position near the screen whose window has not come yet: where the spinner goes.
  let missing = grid.count === null ? 0 : null;
  for (let position = near.first; position <= near.last; position += 1) {
    const resource = resourceAt(position);
    if (!resource) { if (missing === null) missing = position; continue; }
    // Known by id; a list that names two resources alike gets the second by its position too.
    const key = keys.has(resource.id) ? `${resource.id}#${position}` : resource.id;
    keys.add(key);
    const cell = cells.get(key) || newCell(key);
    cells.delete(key);
    fillCell(cell, resource, shape.rect(position), position);
    shown.push(cell);
  }
  if (adding && near.last >= count - 1) {
    const cell = cells.get(ADD_KEY) || newAddCell();
    cells.delete(ADD_KEY);
    placeCell(cell, shape.rect(count));
    shown.push(cell);
  }
  for (const cell of cells.values()) cell.remove();
  // In the order of their positions, for whoever reads the page in order (a screen reader, a test).
  shown.forEach((cell, k) => {
    if (element.children[k] !== cell) element.insertBefore(cell, element.children[k] || null);
  });
  placeSpinner(shape, missing);
  if (state.route.screen === "grid") followScreen(screen, count);
}

// The positions drawn: the screen's and a screenful above and below, so scrolling shows cells, not
// gaps; fewer around it when that would make more than MAX_CELLS (a very tall window).
function around(screen, shape, top, count) {
  const near = shape.range(-top - window.innerHeight, 2 * window.innerHeight - top, count);
  if (near.last - near.first < MAX_CELLS) return near;
  const rows = Math.floor((MAX_CELLS - (screen.last - screen.first + 1)) / 2 / shape.columns);
  const room = Math.max(0, rows) * shape.columns;
  return { first: Math.max(0, screen.first - room), last: Math.min(count - 1, screen.last + room) };
}

// The spinner goes below the last cell drawn while a window it needs is on its way.
function placeSpinner(shape, position) {
  const spinner = $("spinner");
  spinner.hidden = position === null || grid.loading.size === 0;
  if (spinner.hidden) return;
  set(spinner.style, "transform", `translateY(${shape.rect(position).y}px)`);
}

// Windows far from the screen are forgotten: the page holds a few hundred resources, not the list.
function dropFarPages(near) {
  for (const page of grid.pages.keys()) {
    if (page + PAGE <= near.first - 2 * PAGE || page > near.last + 2 * PAGE) grid.pages.delete(page);
  }
}

function newCell(key) {
  const cell = document.createElement("li");
  cell.dataset.key = key;
  cell.innerHTML = '<a draggable="false"><div class="thumb"></div><p class="cell-text"></p></a>'
    + '<button type="button" class="delete" aria-label="Delete">&times;</button>';
  cell.querySelector(".delete").addEventListener("click", (event) => {
    event.preventDefault();
    askToDelete(cell.dataset.id);
  });
  cell.addEventListener("pointerdown", (event) => startDrag(event, cell));
  return cell;
}

function placeCell(cell, rect) {
  if (cell === drag?.cell) return;  // it follows the pointer until dropped
  set(cell.style, "transform", `translate(${rect.x}px, ${rect.y}px)`);
  set(cell.style, "width", `${rect.width}px`);
  set(cell.style, "height", `${rect.height}px`);
}

function fillCell(cell, resource, rect, position) {
  set(cell, "className", resource.status + (position === 0 && !grid.query ? " first" : ""));
  placeCell(cell, rect);
  cell.dataset.id = resource.id;
  cell.dataset.position = String(position);
  set(cell.querySelector(".delete"), "hidden", Boolean(grid.query));
  const link = cell.firstChild;
  const href = `#/list/${grid.id}/view/${resource.index}`;
  if (link.getAttribute("href") !== href) link.setAttribute("href", href);
  set(cell.querySelector(".cell-text"), "textContent", resource.text);
  cellLine(link, "cell-title", grid.lines.title, resource.title);
  cellLine(link, "cell-caption", grid.lines.caption, resource.caption);
  set(cell, "title", resource.error ? `${resource.url}\n${resource.error}` : resource.url);
  const frame = cell.querySelector(".thumb");
  // Gray while queued, downloading or failed; the thumbnail once done (a new one after a reload).
  const source = resource.status === "done" ? imageURL(grid.id, resource, "thumb") : "";
  const image = frame.querySelector("img");
  if (!source && image) image.remove();
  if (source && (!image || image.dataset.source !== source)) {
    const fresh = image || frame.appendChild(document.createElement("img"));
    fresh.alt = `resource ${resource.index}`;
    fresh.draggable = false;
    fresh.dataset.source = source;
    fresh.src = source;
  }
  piecesBar(frame, resource.status === "downloading" ? resource.pieces : null);
}

// A resource in pieces (SPEC §14): a bar of segments across its gray frame, one a piece (up to 32, else
// each stands for as many, a kind with any piece keeping one), done, held and waiting.
function piecesBar(frame, pieces) {
  let bar = frame.querySelector(".pieces");
  if (!pieces || !pieces.total) { if (bar) bar.remove(); return; }
  if (!bar) {
    bar = frame.appendChild(document.createElement("div"));
    bar.className = "pieces";
  }
  const waiting = Math.max(0, pieces.total - pieces.done - pieces.active);
  const share = (count) => pieces.total <= 32 ? count : count === 0 ? 0 : Math.max(1, Math.floor(count * 32 / pieces.total));
  const kinds = [["done", share(pieces.done)], ["held", share(pieces.active)], ["waiting", share(waiting)]]
    .flatMap(([kind, count]) => Array(count).fill(kind));
  while (bar.children.length > kinds.length) bar.lastChild.remove();
  while (bar.children.length < kinds.length) bar.appendChild(document.createElement("span"));
  kinds.forEach((kind, at) => set(bar.children[at], "className", kind));
}

// A line of a cell (title or caption): there in every cell when the list has it, so the rows line up.
function cellLine(link, name, wanted, text) {
  let line = link.querySelector(`.${name}`);
  if (!wanted) { if (line) line.remove(); return; }
  if (!line) {
    line = document.createElement("p");
    line.className = name;
    link.appendChild(line);
    // The title above the caption, whichever came first.
    if (name === "cell-title") link.insertBefore(line, link.querySelector(".cell-caption"));
  }
  set(line, "textContent", text || "");
}

function imageURL(id, resource, kind) {
  // The change time names the version: a reloaded resource gets a new URL, so no stale cache.
  return `/api/lists/${id}/${resource.index}/${kind}?v=${encodeURIComponent(resource.changed || "")}`;
}

// --- Editing ---------------------------------------------------------------------------------------

const ADD_KEY = "\u0000add";

// The last cell: a button that opens a field for the new resource's URL, with OK and Cancel.
function newAddCell() {
  const cell = document.createElement("li");
  cell.dataset.key = ADD_KEY;
  cell.className = "add";
  cell.innerHTML = '<button type="button" class="add-open">+ Add</button>'
    + '<form class="add-form" hidden><input type="url" required placeholder="https://…/image.jpg" aria-label="URL">'
    + '<div class="add-buttons"><button type="submit">OK</button><button type="button" class="add-cancel">Cancel</button>'
    + "</div></form>";
  const form = cell.querySelector("form"), open = cell.querySelector(".add-open");
  const close = () => { form.hidden = true; open.hidden = false; form.reset(); };
  open.addEventListener("click", () => { open.hidden = true; form.hidden = false; form.querySelector("input").focus(); });
  cell.querySelector(".add-cancel").addEventListener("click", close);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const url = form.querySelector("input").value.trim();
    if (await change("POST", `/api/lists/${grid.id}/items`, { url })) { close(); refreshGrid(); }
  });
  return cell;
}

// The confirmation of a delete, worded as the app words it; Yes deletes, Cancel (or Escape) does not.
function askToDelete(id) {
  const dialog = $("confirm");
  $("confirm-text").textContent = `Do you really want to delete the item with identifier ${id}?`;
  dialog.hidden = false;
  $("confirm-yes").focus();
  const answer = async (yes) => {
    dialog.hidden = true;
    $("confirm-yes").onclick = $("confirm-cancel").onclick = dialog.onkeydown = null;
    if (yes && await change("DELETE", `/api/lists/${grid.id}/items/${encodeURIComponent(id)}`)) refreshGrid();
  };
  $("confirm-yes").onclick = () => answer(true);
  $("confirm-cancel").onclick = () => answer(false);
  dialog.onkeydown = (event) => { if (event.key === "Escape") answer(false); };
}

// A drag in progress: the cell, where the pointer took it, and whether it has moved enough to be one.
let drag = null;

function startDrag(event, cell) {
  if (grid.query || event.button !== 0 || event.target.closest("button")) return;
  const box = cell.getBoundingClientRect();
  drag = { cell, pointer: event.pointerId, x: event.clientX, y: event.clientY, dx: event.clientX - box.left,
    dy: event.clientY - box.top, origin: cell.style.transform, moving: false };
}

window.addEventListener("pointermove", (event) => {
  if (!drag || event.pointerId !== drag.pointer) return;
  if (!drag.moving && Math.hypot(event.clientX - drag.x, event.clientY - drag.y) < 6) return;
  drag.moving = true;
  drag.cell.classList.add("dragging");
  const frame = $("grid").getBoundingClientRect();
  drag.cell.style.transform = `translate(${event.clientX - frame.left - drag.dx}px, ${event.clientY - frame.top - drag.dy}px)`;
  for (const cell of $("grid").children) cell.classList.toggle("drop-target", cell === target(event));
});

window.addEventListener("pointerup", async (event) => {
  if (!drag || event.pointerId !== drag.pointer) return;
  const { cell, moving, origin } = drag;
  // Looked for while the dragged cell is still known, so it is not taken for the target under it.
  const onto = moving ? target(event) : null;
  drag = null;
  cell.classList.remove("dragging");
  if (!moving) return;
  // A drag is no click: the cell's link must not open the viewer (the click, if any, comes right after).
  const noClick = (click) => click.preventDefault();
  cell.addEventListener("click", noClick, { capture: true });
  setTimeout(() => cell.removeEventListener("click", noClick, { capture: true }), 0);
  for (const other of $("grid").children) other.classList.remove("drop-target");
  cell.style.transform = origin;  // back to its place; the answer of the server moves it, if it does
  if (onto && onto.dataset.position !== cell.dataset.position) {
    const to = Number(onto.dataset.position);
    if (await change("POST", `/api/lists/${grid.id}/items/${encodeURIComponent(cell.dataset.id)}/move`, { to })) {
      refreshGrid();
    }
  }
});

// A touch that turned into a scroll: the drag is off.
window.addEventListener("pointercancel", (event) => {
  if (!drag || event.pointerId !== drag.pointer) return;
  drag.cell.classList.remove("dragging");
  drag.cell.style.transform = drag.origin;
  drag = null;
});

// The resource cell under the pointer, other than the one dragged.
function target(event) {
  return document.elementsFromPoint(event.clientX, event.clientY)
    .find((element) => element.parentNode === $("grid") && element !== drag?.cell && element.dataset.position !== undefined
      && element.dataset.key !== ADD_KEY) || null;
}

// After an edit: every window held is asked again, and replaces the old one when all have come, so the
// cells slide to their new places at once instead of flickering.
function refreshGrid() {
  const current = grid, generation = ++grid.generation;
  const starts = grid.pages.size ? [...grid.pages.keys()] : [0];
  grid.loading.clear();
  Promise.all(starts.map((start) => fetchWindow(current.id, start, PAGE, current.query))).then((lists) => {
    if (grid !== current || current.generation !== generation) return;
    current.pages.clear();
    for (const list of lists) if (list) take(list);
    renderGrid();
  });
}

// --- Following the screen --------------------------------------------------------------------------

// The event stream follows the windows on screen: once scrolling settles, or at once on opening.
function followScreen(screen, count) {
  const offset = Math.floor(Math.max(0, screen.first) / PAGE) * PAGE;
  const end = Math.max(offset + PAGE, Math.ceil((screen.last + 1) / PAGE) * PAGE);
  const wanted = { offset, limit: Math.min(STREAM_LIMIT, end - offset), query: grid.query };
  const now = grid.stream;
  if (now && now.offset === wanted.offset && now.limit === wanted.limit && now.query === wanted.query) return;
  clearTimeout(grid.streamTimer);
  const follow = () => {
    if (state.route.screen !== "grid") return;
    grid.stream = wanted;
    listen(listURL(grid.id, wanted.offset, wanted.limit, wanted.query));
  };
  if (!now || count === 0) follow(); else grid.streamTimer = setTimeout(follow, 300);
}

function search() {
  if (!grid || grid.query === $("search").value) return;
  grid.query = $("search").value;
  grid.generation += 1;
  grid.retry = 0;
  grid.pages.clear();
  grid.loading.clear();
  grid.count = null;
  $("grid").replaceChildren();
  const top = $("grid").getBoundingClientRect().top + window.scrollY;
  if (window.scrollY > top) window.scrollTo(0, top);
  fetchPage(0);
  renderGrid();
}

let searchTimer = 0;
$("search").addEventListener("input", () => { clearTimeout(searchTimer); searchTimer = setTimeout(search, 250); });
$("search").addEventListener("keydown", (event) => {
  if (event.key === "Enter") { clearTimeout(searchTimer); search(); }
});
$("list-cover").addEventListener("error", () => { $("list-cover").hidden = true; });
$("reload").addEventListener("click", () => post(`/api/lists/${state.route.list}/reload`));
window.addEventListener("scroll", scheduleRender, { passive: true });
window.addEventListener("resize", scheduleRender);
