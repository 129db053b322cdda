// The input bar (seed 000): paperclip, message, file button; drop files anywhere on it.
// Uploading never narrows a question. Which files answers may use is an explicit choice, made
// with the tick boxes in the files list and shown above the bar until cleared (it survives a
// reload); with none chosen, answers use all your files.

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

/** `onSend(text)` returns true when the message was taken (false while an answer streams). */
export function setupComposer(onSend) {
  const form = document.getElementById("input-bar");
  const input = document.getElementById("message");
  const picker = document.getElementById("file-input");

  document.getElementById("paperclip").addEventListener("click", () => picker.click());
  picker.addEventListener("change", () => {
    uploadFiles(picker.files);
    picker.value = ""; // choosing the same file again still fires `change`
  });

  input.addEventListener("input", () => fitHeight(input));
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (text && onSend(text)) {
      input.value = "";
      fitHeight(input);
    }
  });
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
