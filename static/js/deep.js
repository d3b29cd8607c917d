// Deep dives (<details class="deep">) stay closed until the reader opens one, or follows a link to
// it or to anything inside it: #h-ladder, or a key of the state hash, #lang=en&h-ladder.
import { onHashChange, parseHash } from "./state.js";

export function openTarget(id) {
  const target = id && document.getElementById(id);
  if (!target) return false;
  for (let box = target.closest("details"); box; box = box.parentElement.closest("details")) box.open = true;
  return true;
}

function follow(hash) {
  const keys = Object.keys(hash);
  const id = keys.find((key) => openTarget(key));
  if (id) document.getElementById(id).scrollIntoView();
}

export function initDeepDives() {
  onHashChange(follow);
  follow(parseHash(location.hash));
}
