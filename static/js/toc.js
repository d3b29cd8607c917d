// The table of contents follows the reader: the section in view is marked in it, and a bar shows
// how far down the page the reader is. On a wide screen the contents stay beside the text.
export function initToc(nav) {
  const links = new Map([...nav.querySelectorAll("a[href^='#s-']")].map((a) => [a.getAttribute("href").slice(1), a]));
  const bar = nav.querySelector(".toc-progress span");
  const mark = (id) => {
    for (const [key, a] of links) {
      if (key === id) a.setAttribute("aria-current", "location");
      else a.removeAttribute("aria-current");
    }
  };
  // the section that holds the line a third of the way down the window
  let pending = false;
  const update = () => {
    pending = false;
    const line = innerHeight / 3;
    let current = null;
    for (const id of links.keys()) {
      const section = document.getElementById(id);
      if (section && section.getBoundingClientRect().top <= line) current = id;
    }
    mark(current);
    const room = document.documentElement.scrollHeight - innerHeight;
    if (bar) bar.style.width = `${room > 0 ? Math.min(100, (100 * scrollY) / room) : 0}%`;
  };
  const schedule = () => { if (!pending) { pending = true; requestAnimationFrame(update); } };
  addEventListener("scroll", schedule, { passive: true });
  addEventListener("resize", schedule);
  schedule(); // the first mark waits for a frame: reading the layout now would lay out the whole page before it is ready
}
