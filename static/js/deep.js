// Deep dives (<details class="deep">) stay closed until the reader opens one, or follows a link to
// it or to anything inside it: #h-ladder, or a key of the state hash, #lang=en&h-ladder. A widget in a
// box that keeps its state in the hash (data-hash-keys="mtppart") opens with it: #mtppart=block.
import { onHashChange, ownEntry, parseHash } from "./state.js";

export function openTarget(id) {
  const target = id && document.getElementById(id);
  if (!target) return false;
  for (let box = target.closest("details"); box; box = box.parentElement.closest("details")) box.open = true;
  return true;
}

function follow(hash) {
  const keyed = [...document.querySelectorAll("[data-hash-keys]")]
    .filter((widget) => widget.dataset.hashKeys.split(" ").some((key) => ownEntry(hash, key) !== undefined));
  for (const widget of keyed) openTarget(widget.id);
  const id = Object.keys(hash).find((key) => openTarget(key)) ?? keyed[0]?.id;
  if (id) document.getElementById(id).scrollIntoView();
}

export function initDeepDives() {
  onHashChange(follow);
  follow(parseHash(location.hash));
}
