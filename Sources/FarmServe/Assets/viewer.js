// Screen 3: the viewer of one resource, by its index in the list (whatever the grid's search). It
// follows that one resource through the event stream (a window of one), and shows what the grid
// already holds of it meanwhile.
"use strict";

// The resource on screen, and the list it came with (for its total).
const viewer = { list: null, resource: null };

function openViewer() {
  const index = state.route.index;
  if (!viewer.resource || viewer.resource.index !== index || viewer.list.id !== state.route.list) {
    viewer.resource = null;
    const known = grid && !grid.query && resourceAt(index);
    if (known) { viewer.list = grid.list; viewer.resource = known; }
  }
  listen(listURL(state.route.list, index, 1, ""));
  renderViewer();
}

function viewerReceived(list) {
  if (list.offset !== state.route.index) return;
  const resource = (list.resources || [])[0];
  if (!resource) { location.hash = `#/list/${list.id}`; return; }
  viewer.list = list;
  viewer.resource = resource;
  renderViewer();
}

function renderViewer() {
  const list = viewer.list, resource = viewer.resource, index = state.route.index;
  if (!list || !resource || resource.index !== index) {
    set($("viewer-text"), "textContent", "…");
    $("viewer-text").hidden = false;
    return;
  }
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
  const title = resource.title ? `${resource.title} — ` : "";
  set($("viewer-caption"), "textContent", `${index + 1} / ${list.total} — ${title}${resource.url}`);
  set($("previous"), "disabled", index === 0);
  set($("next"), "disabled", index >= list.total - 1);
}

function step(delta) {
  const list = viewer.list, index = state.route.index + delta;
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
