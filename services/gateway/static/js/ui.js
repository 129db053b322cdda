// Small DOM helpers shared by the views: element building, icons, notices, dates.

/** Build an element: el("button", {class: "x", onclick}, "text", child). Text is never HTML. */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (name === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  node.append(...children.flat().filter((child) => child !== null && child !== undefined));
  return node;
}

// Icons are constant markup written here, never data from the API.
const ICONS = {
  paperclip:
    '<path d="M21 12.5 12.6 20.9a5.5 5.5 0 0 1-7.8-7.8l8.9-8.9a3.7 3.7 0 0 1 5.2 5.2l-8.9 8.9a1.8 1.8 0 0 1-2.6-2.6l8.2-8.2"/>',
  trash:
    '<path d="M4 7h16M10 11v6M14 11v6M6 7l1 12a2 2 0 0 0 2 2h6a2 2 0 0 0 2-2l1-12M9 7V4h6v3"/>',
  star: '<path d="m12 3 2.8 5.7 6.2.9-4.5 4.4 1 6.2-5.5-2.9-5.5 2.9 1-6.2L3 9.6l6.2-.9z"/>',
  retry: '<path d="M20 11a8 8 0 1 0-2.3 5.7M20 4v7h-7"/>',
  close: '<path d="M6 6l12 12M18 6 6 18"/>',
  download: '<path d="M12 4v11M7 10l5 5 5-5M5 20h14"/>',
  copy: '<rect x="9" y="9" width="11" height="11" rx="2"/><path d="M5 15V6a2 2 0 0 1 2-2h8"/>',
  edit: '<path d="M4 20h4L19 9l-4-4L4 16zM13 7l4 4"/>',
};

function icon(name) {
  const span = el("span", { class: "icon", "aria-hidden": "true" });
  span.innerHTML = `<svg viewBox="0 0 24 24" width="20" height="20" fill="none" stroke="currentColor" stroke-width="1.8" stroke-linecap="round" stroke-linejoin="round">${ICONS[name]}</svg>`;
  return span;
}

/** Save a downloaded file (fetched with the key in a header, so never a link to the API). */
export function saveBlob(name, blob) {
  const url = URL.createObjectURL(blob);
  const link = el("a", { href: url, download: name, hidden: true });
  document.body.append(link); // Firefox follows only a link in the page
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** A button with an icon and an accessible name (shown as a tooltip too). */
export function iconButton(name, label, onclick, attributes = {}) {
  return el("button", { type: "button", class: "icon-button", "aria-label": label, title: label, onclick, ...attributes }, icon(name));
}

// long enough to read, short enough to get out of the way; hovering or focusing one holds it
const NOTICE_SECONDS = { error: 8, info: 4 };

/** A short message at the top of the conversation; it fades by itself or is dismissed. */
/** The last row of a list that has more pages: a button that loads the next one, pressed by
 * itself when it scrolls into view, so reading to the end of the list loads more. `load` must
 * ignore a call while it is still loading. */
export function moreRow(label, load) {
  const row = el("li", { class: "more-row" }, el("button", { type: "button", class: "link more", onclick: load }, label));
  const watcher = new IntersectionObserver((entries) => {
    if (!entries.some((entry) => entry.isIntersecting)) return;
    watcher.disconnect();
    load();
  });
  watcher.observe(row);
  return row;
}

/** Below a list's first page: while there are more, a last row that loads the page after
 * `next` (`fetchPage(before)`, each item drawn by `draw`), pressed by itself in view. */
export function morePages(list, next, fetchPage, draw, what) {
  if (!next || !list) return;
  let loading = false;
  const more = moreRow(`Show more ${what}`, async () => {
    if (loading) return;
    loading = true;
    try {
      const page = await fetchPage(next);
      more.remove();
      list.append(...page.items.map(draw));
      morePages(list, page.next, fetchPage, draw, what);
    } catch (error) {
      reportError(error, `Loading more ${what}`);
    } finally {
      loading = false;
    }
  });
  list.append(more);
}

export function notify(message, kind = "info") {
  const region = document.getElementById("notices");
  const notice = el(
    "div",
    { class: `notice ${kind}`, role: kind === "error" ? "alert" : "status" },
    el("p", {}, message),
    iconButton("close", "Dismiss", () => notice.remove()),
  );
  let timer = null;
  const hold = () => clearTimeout(timer);
  const fade = () => {
    hold();
    timer = setTimeout(() => notice.remove(), (NOTICE_SECONDS[kind] ?? NOTICE_SECONDS.info) * 1000);
  };
  notice.addEventListener("mouseenter", hold);
  notice.addEventListener("mouseleave", fade);
  notice.addEventListener("focusin", hold);
  notice.addEventListener("focusout", fade);
  region.append(notice);
  fade();
  return notice;
}

// The API names the setting an operator would change, "(ARTISAN_MAX_UPLOAD_BYTES)"; the people
// using this page are told what to do instead.
const SETTING_NOTE = /\s*\((?:the limit is |set )?ARTISAN_[A-Z0-9_]+\)/g;
const SETTING = /\bARTISAN_[A-Z0-9_]+\b/g;

/** A server message without the names of server settings. */
export function inUserWords(message) {
  return String(message).replace(SETTING_NOTE, "").replace(SETTING, "a setting of this Artisan");
}

/** Report a failed API call (ApiError or anything thrown) as a readable notice. */
export function reportError(error, prefix = "") {
  if (error?.name === "AbortError") return;
  if (error?.status === 401) return; // the key screen says it
  const message = inUserWords(error?.message || String(error));
  notify(prefix ? `${prefix}: ${message}` : message, "error");
}

const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

export function formatTime(iso) {
  return timeFormat.format(new Date(iso));
}

export function formatSize(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export function lineRange(start, end) {
  if (start == null) return "";
  return start === end ? `line ${start}` : `lines ${start}–${end}`;
}

/** An SVG ring filled to `percent`, with the number inside. */
export function progressRing(percent, status) {
  const radius = 15;
  const circumference = 2 * Math.PI * radius;
  const filled = (circumference * Math.max(0, Math.min(100, percent))) / 100;
  const ring = el("span", {
    class: `ring ${status}`,
    role: "progressbar",
    "aria-valuemin": "0",
    "aria-valuemax": "100",
    "aria-valuenow": String(percent),
  });
  ring.innerHTML = `<svg viewBox="0 0 36 36" width="36" height="36" aria-hidden="true"><circle class="track" cx="18" cy="18" r="${radius}"/><circle class="fill" cx="18" cy="18" r="${radius}" stroke-dasharray="${filled} ${circumference}" transform="rotate(-90 18 18)"/></svg>`;
  ring.append(el("span", { class: "ring-label" }, status === "failed" ? "!" : `${percent}%`));
  return ring;
}
