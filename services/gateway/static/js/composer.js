// The input bar (seed 000): paperclip, message, file button; drop files anywhere on it.
// Files uploaded from here are attached to the next message until sent or removed.

import { uploadFiles } from "./files.js";
import { el, iconButton } from "./ui.js";

const attached = new Map(); // file id -> record

export function attach(record) {
  attached.set(record.id, record);
  renderAttachments();
}

export function detach(fileId) {
  if (attached.delete(fileId)) renderAttachments();
}

/** The attachments of the message being sent; the bar starts empty again. */
export function takeAttachments() {
  const records = [...attached.values()];
  attached.clear();
  renderAttachments();
  return records;
}

function renderAttachments() {
  const container = document.getElementById("attachments");
  container.hidden = attached.size === 0;
  container.replaceChildren(
    ...[...attached.values()].map((record) =>
      el(
        "span",
        { class: "chip", dataset: { fileId: record.id } },
        el("span", { class: "chip-label" }, record.filename),
        iconButton("close", `Remove ${record.filename} from this message`, () => detach(record.id)),
      ),
    ),
  );
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
