// The cited passage: the whole chunk it came from, with the quoted snippet highlighted in it.

import { api } from "./api.js";
import { el, formatTime, lineRange, reportError } from "./ui.js";

const chunkCache = new Map(); // file id -> Promise of its chunks

export function forgetFileChunks(fileId) {
  chunkCache.delete(fileId);
}

function chunksOf(fileId) {
  if (!chunkCache.has(fileId)) {
    const loading = api.chunks(fileId).then((page) => page.items);
    loading.catch(() => chunkCache.delete(fileId));
    chunkCache.set(fileId, loading);
  }
  return chunkCache.get(fileId);
}

/** `text` as nodes, with the first occurrence of `snippet` in a <mark>. */
export function highlighted(text, snippet) {
  const at = snippet ? text.indexOf(snippet) : -1;
  if (at < 0) return [text];
  return [text.slice(0, at), el("mark", {}, snippet), text.slice(at + snippet.length)];
}

export async function openCitation(citation) {
  const dialog = document.getElementById("citation-dialog");
  const body = dialog.querySelector(".dialog-body");
  const heading = dialog.querySelector("h2");
  heading.textContent = `[Ref: ${citation.ref}] ${citation.file_id ? citation.filename : citation.fact_id ? "What Artisan knows" : "Past conversation"}`;
  body.replaceChildren(el("p", { class: "muted" }, "Loading the passage…"));
  if (!dialog.open) dialog.showModal();
  try {
    const passage = citation.file_id ? filePassage : citation.fact_id ? factPassage : turnPassage;
    body.replaceChildren(...(await passage(citation)));
    body.querySelector("mark")?.scrollIntoView({ block: "center" });
  } catch (error) {
    body.replaceChildren(el("p", { class: "error-text" }, error.status === 404
      ? "This source no longer exists: its file or turn was deleted."
      : error.message));
    if (error.status !== 404) reportError(error, "Opening the source");
  }
}

async function filePassage(citation) {
  const chunk = (await chunksOf(citation.file_id)).find((item) => item.id === citation.chunk_id);
  if (!chunk) return replacedPassage(citation);
  const where = [citation.title || chunk.title, lineRange(chunk.line_start, chunk.line_end),
    `characters ${chunk.char_start}–${chunk.char_end}`].filter(Boolean).join(" · ");
  return [
    el("p", { class: "muted passage-where" }, where),
    el("pre", { class: "passage", tabindex: "0" }, ...highlighted(chunk.text, citation.snippet)),
  ];
}

// a passage of an earlier version: the file was updated since, and only what the answer quoted
// from it is kept (docs/storage.md)
function replacedPassage(citation) {
  return [
    el("p", { class: "muted passage-where" }, citation.title || citation.filename),
    el("blockquote", { class: "passage-quote" }, el("mark", {}, citation.snippet)),
    el("p", { class: "muted" }, "This passage was replaced by a newer version of the file; the words above are what the answer quoted from it."),
  ];
}

// a memory fact: what Artisan learned about you or your company, as the memory panel lists it
async function factPassage(citation) {
  return [
    el("p", { class: "muted passage-where" }, `Memory · ${citation.title}`),
    el("blockquote", { class: "passage-quote" }, el("mark", {}, citation.snippet)),
    el("p", { class: "muted" }, "Learned from what you told an advisor; every advisor knows it. Forget it in the memory panel."),
  ];
}

async function turnPassage(citation) {
  const turn = await api.turn(citation.turn_id);
  return [
    el("p", { class: "muted passage-where" }, `${turn.persona} · ${formatTime(turn.created_at)}`),
    el("blockquote", { class: "passage-quote" }, el("mark", {}, citation.snippet)),
    el("h3", {}, "You said"),
    el("p", { class: "passage-text" }, turn.user_message),
    el("h3", {}, "The answer"),
    el("p", { class: "passage-text" }, turn.ai_response),
  ];
}
