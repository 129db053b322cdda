// The input bar (seed 000): paperclip, message, file button; drop files anywhere on it.
// Uploading never narrows a question. Which files answers may use is an explicit choice, made
// with the tick boxes in the files list and shown above the bar until cleared (it survives a
// reload); with none chosen, answers use all your files.
//
// The words are never lost: what you type is kept as a draft (per conversation, across reloads),
// stays in the box until the answer has been accepted, and comes back to the box when the answer
// fails or is stopped. A counter shows near the server's limit, and Send is off past it.

import { fileRecord, uploadFiles } from "./files.js";
import { el, iconButton } from "./ui.js";

const STORED_SOURCES = "artisan.sources";
const sources = new Set(JSON.parse(localStorage.getItem(STORED_SOURCES) ?? "[]")); // file ids

export function isSource(fileId) {
  return sources.has(fileId);
}

/** Tick or untick a file as a source; only a ready file can be chosen. */
export function chooseSource(record, chosen) {
  if (chosen && record.status === "ready") sources.add(record.id);
  else sources.delete(record.id);
  saveSources();
}

/** A deleted or failed file stops being a source. */
export function dropSource(fileId) {
  if (sources.delete(fileId)) saveSources();
}

/** The ids the next question may use (empty: all your files). */
export function chosenSources() {
  return [...sources];
}

function saveSources() {
  localStorage.setItem(STORED_SOURCES, JSON.stringify([...sources]));
  renderSources();
  // the files list shows the same choice in its tick boxes
  for (const box of document.querySelectorAll("#file-list .source-box")) {
    box.checked = sources.has(box.closest(".file-row").dataset.fileId);
  }
}

export function renderSources() {
  const container = document.getElementById("attachments");
  container.hidden = sources.size === 0;
  const chips = [...sources].map((id) => {
    const name = fileRecord(id)?.filename ?? "a file";
    return el(
      "span",
      { class: "chip", dataset: { fileId: id } },
      el("span", { class: "chip-label" }, name),
      iconButton("close", `Stop using ${name} for answers`, () => dropSource(id)),
    );
  });
  const clear = el("button", { type: "button", class: "link clear-sources", onclick: clearSources }, "Use all files");
  container.replaceChildren(el("span", { class: "sources-label" }, "Answers use only:"), ...chips, clear);
}

function clearSources() {
  sources.clear();
  saveSources();
}

const DRAFT = "artisan.draft";
const COUNT_FROM = 0.8; // the counter shows from this share of the limit
let draftKey = DRAFT;
let maxChars = Infinity; // until the server says (GET /v1/chat/limits)

const messageBox = () => document.getElementById("message");

/**
 * Drafts are kept per conversation: `scope` names the one shown (null: before conversations
 * exist, or none chosen). What is in the box now is kept under the old scope first.
 */
export function setDraftScope(scope) {
  saveDraft();
  draftKey = scope ? `${DRAFT}.${scope}` : DRAFT;
  setText(localStorage.getItem(draftKey) ?? "");
}

function saveDraft() {
  const text = messageBox().value;
  if (text.trim()) localStorage.setItem(draftKey, text);
  else localStorage.removeItem(draftKey);
}

function setText(text) {
  const input = messageBox();
  input.value = text;
  fitHeight(input);
  updateCount();
}

/** The server's limit on a message's length (the counter and Send follow it). */
export function setMessageLimit(limit) {
  maxChars = limit;
  updateCount();
}

function updateCount() {
  const input = messageBox();
  const counter = document.getElementById("message-count");
  const length = input.value.length;
  const over = length > maxChars;
  counter.hidden = length < maxChars * COUNT_FROM;
  counter.classList.toggle("over", over);
  const count = `${length.toLocaleString()} / ${maxChars.toLocaleString()}`;
  counter.textContent = over
    ? `${count}: ${(length - maxChars).toLocaleString()} characters too many. Shorten it, or upload the text as a file.`
    : count;
  input.setAttribute("aria-invalid", String(over));
  document.getElementById("send").disabled = over;
}

/** The answer was accepted: the box (if it still holds this text) and its draft are cleared. */
export function messageTaken(text) {
  const input = messageBox();
  input.readOnly = false;
  if (input.value.trim() === text) setText("");
  saveDraft();
}

/** The answer failed or was stopped before it was kept: the words go back to the box, unless
 * something else has been written there since. */
export function putBack(text) {
  const input = messageBox();
  input.readOnly = false;
  if (!input.value.trim() || input.value.trim() === text) setText(text);
  saveDraft();
}

/** Put a sent message back in the box to edit it and send it again (a new turn). */
export function editMessage(text) {
  const current = messageBox().value.trim();
  if (current && current !== text && !window.confirm("Replace what you are writing with this message?")) return;
  setText(text);
  saveDraft();
  messageBox().focus();
}

/** While an answer streams Stop takes Send's place; `onStop` ends it. */
export function showAnswering(answering) {
  document.getElementById("send").hidden = answering;
  document.getElementById("stop").hidden = !answering;
  if (!answering) messageBox().readOnly = false;
}

/** `onSend(text)` returns true when the message was taken (false while an answer streams);
 * `onStop()` stops the answer streaming now. */
export function setupComposer(onSend, onStop) {
  const form = document.getElementById("input-bar");
  const input = messageBox();
  const picker = document.getElementById("file-input");

  document.getElementById("paperclip").addEventListener("click", () => picker.click());
  picker.addEventListener("change", () => {
    uploadFiles(picker.files);
    picker.value = ""; // choosing the same file again still fires `change`
  });

  input.addEventListener("input", () => {
    fitHeight(input);
    updateCount();
    saveDraft();
  });
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  document.getElementById("stop").addEventListener("click", onStop);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text || text.length > maxChars) return;
    // kept in the box (read-only) until the answer is accepted: a failed send loses nothing
    if (onSend(text)) input.readOnly = true;
  });
  setText(localStorage.getItem(draftKey) ?? "");
  setupDrop(document.getElementById("composer"));
}

function fitHeight(input) {
  input.style.height = "auto";
  input.style.height = `${Math.min(input.scrollHeight, 200)}px`;
}

function setupDrop(zone) {
  let depth = 0; // dragenter/leave fire for every child crossed
  const hasFiles = (event) => [...(event.dataTransfer?.types ?? [])].includes("Files");
  zone.addEventListener("dragenter", (event) => {
    if (!hasFiles(event)) return;
    depth += 1;
    zone.classList.add("dropping");
  });
  zone.addEventListener("dragleave", () => {
    depth = Math.max(0, depth - 1);
    if (depth === 0) zone.classList.remove("dropping");
  });
  zone.addEventListener("dragover", (event) => {
    if (!hasFiles(event)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "copy";
  });
  zone.addEventListener("drop", (event) => {
    event.preventDefault();
    depth = 0;
    zone.classList.remove("dropping");
    if (event.dataTransfer.files.length) uploadFiles(event.dataTransfer.files);
  });
  // a file dropped beside the bar must not make the browser navigate away to it
  for (const type of ["dragover", "drop"]) window.addEventListener(type, (event) => event.preventDefault());
}
