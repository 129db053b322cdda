// The documents panel: what the chat's tools made from your files (a meeting summary of an
// attached transcript), listed, read with each item's cited passage, saved as Markdown, deleted.
// An answer's link to a document opens it here: its address needs the key in a header, which a
// plain link cannot send (and the key never goes into a URL).

import { api } from "./api.js";
import { openCitation } from "./citation.js";
import { renderMarkdown } from "./markdown.js";
import { el, formatTime, iconButton, morePages, notify, reportError, saveBlob } from "./ui.js";

const KINDS = { meeting_summary: "Meeting summary" };
const DOCUMENT_PATH = /^\/v1\/documents\/([0-9a-f-]{36})(?:\/export)?$/;
const EMPTY =
  "No documents yet. Tick a meeting transcript in your files and ask “Summarise this meeting”: the summary is kept here, every item citing its passage.";

const panel = () => document.getElementById("documents-panel");
const button = () => document.getElementById("documents-button");
const body = () => panel().querySelector(".panel-body");

export function setupDocumentsPanel() {
  button().addEventListener("click", () => (panel().hidden ? showList() : closePanel()));
  panel().querySelector(".close").addEventListener("click", closePanel);
  panel().addEventListener("keydown", (event) => event.key === "Escape" && closePanel());
  // capturing: the link is taken over before the browser follows it to a page needing a key
  document.addEventListener("click", openLinkedDocument, true);
}

function showPanel() {
  panel().hidden = false;
  button().setAttribute("aria-expanded", "true");
}

function closePanel() {
  panel().hidden = true;
  button().setAttribute("aria-expanded", "false");
  button().focus();
}

function openLinkedDocument(event) {
  const link = event.target.closest?.("a[href]");
  if (!link || link.origin !== location.origin) return;
  const found = DOCUMENT_PATH.exec(link.pathname);
  if (!found) return;
  event.preventDefault();
  openDocument(found[1]);
}

async function showList() {
  showPanel();
  panel().querySelector("h2").focus();
  try {
    const page = await api.documents();
    if (!page.items.length) return body().replaceChildren(el("p", { class: "muted" }, EMPTY));
    const list = el("ul", { class: "memory-list document-list" }, page.items.map(documentItem));
    body().replaceChildren(list);
    morePages(list, page.next, (before) => api.documents({ before }), documentItem, "documents");
  } catch (error) {
    reportError(error, "Loading the documents");
  }
}

function documentItem(record) {
  return el(
    "li",
    { dataset: { documentId: record.id } },
    el("button", { type: "button", class: "link document-open", onclick: () => openDocument(record.id) }, record.title),
    el("p", { class: "muted" }, describe(record)),
    iconButton("trash", `Delete the document “${record.title}”`, () => remove(record)),
  );
}

function describe(record) {
  return `${KINDS[record.kind] ?? record.kind} · from ${record.filename} · ${formatTime(record.created_at)}`;
}

/** One document in the panel: its Markdown, each [Ref: N] a chip opening the cited passage. */
export async function openDocument(id) {
  showPanel();
  body().replaceChildren(el("p", { class: "muted" }, "Loading the document…"));
  let record;
  try {
    record = await api.document(id);
  } catch (error) {
    body().replaceChildren(el("p", { class: "error-text" }, error.status === 404 ? "This document no longer exists: it was deleted." : error.message));
    return;
  }
  const citations = new Map(record.items.map((item) => [item.citation.ref, item.citation]));
  const text = el("div", { class: "document-text" });
  renderMarkdown(text, record.body, citations, openCitation);
  const heading = text.querySelector("h1:first-child"); // the title, shown once above instead
  if (heading?.textContent === record.title) heading.remove();
  const title = el("h3", { class: "document-title", tabindex: "-1" }, record.title);
  body().replaceChildren(
    el(
      "div",
      { class: "document-actions" },
      el("button", { type: "button", class: "ghost", onclick: showList }, "All documents"),
      el("button", { type: "button", class: "ghost", onclick: () => download(record) }, "Download (.md)"),
      el("button", { type: "button", class: "ghost danger", onclick: () => remove(record) }, "Delete"),
    ),
    el("article", { class: "document", dataset: { documentId: record.id }, "aria-labelledby": "document-title" },
      Object.assign(title, { id: "document-title" }),
      el("p", { class: "muted" }, `${describe(record)} · ${record.items.length} items, each citing its passage`),
      text),
  );
  title.focus();
}

async function download(record) {
  try {
    const { name, blob } = await api.exportDocument(record.id);
    saveBlob(name, blob);
  } catch (error) {
    reportError(error, "Downloading the document");
  }
}

async function remove(record) {
  if (!window.confirm(`Delete the document “${record.title}”? The file it was made from stays.`)) return;
  try {
    await api.deleteDocument(record.id);
    notify("Document deleted.");
  } catch (error) {
    if (error.status !== 404) return reportError(error, "Deleting the document");
  }
  showList();
}
