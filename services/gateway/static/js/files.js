// Files: uploads, the file button and its badge, the dropdown with live progress (SSE), details.

import { api } from "./api.js";
import { forgetFileChunks } from "./citation.js";
import { fileFailure, loadUploadRules, refusalOf, uploadFailure } from "./formats.js";
import { renderMarkdown } from "./markdown.js";
import { el, formatSize, formatTime, iconButton, inUserWords, lineRange, moreRow, notify, progressRing, reportError } from "./ui.js";

const files = new Map(); // id -> {record, key: order of the last state shown, message}
const uploading = new Map(); // client id -> {name, sent: 0..1}
// the list comes a page at a time, newest first: the cursor of the next page (null: all read)
let more = null;
let pagesRead = 0;
let loadingMore = false;
// the composer's choice of sources, wired by main.js (the composer imports this module)
const listeners = { isSource: () => false, choose: () => {}, remove: () => {}, changed: () => {}, sources: () => [] };
let source = null;
let reconnectDelay = 1000;

/** `isSource(id)` and `choose(record, chosen)` back each file's tick box; `remove(id)` is called
 * when a file is deleted or fails; `changed()` after every change to the list; `sources()` are
 * the chosen ids. */
export function onFileEvents({ isSource, choose, remove, changed, sources }) {
  Object.assign(listeners, { isSource, choose, remove, changed, sources });
}

export function fileRecord(id) {
  return files.get(id)?.record;
}

const QUIET_SECONDS = 10;
let quietCheck = null;

/** Follow progress; each time the stream (re)opens, the file list is read again — it is the
 * truth for files that finished or vanished while the stream was down. */
export function startFiles() {
  loadUploadRules();
  connectEvents();
  // an event published while the stream was still connecting is never sent again: a file that
  // stays quiet while processing is read again, as the server does for the files it streams
  quietCheck ??= setInterval(refreshQuietFiles, (QUIET_SECONDS / 2) * 1000);
}

function refreshQuietFiles() {
  const quietSince = Date.now() - QUIET_SECONDS * 1000;
  for (const [id, entry] of files) {
    if (entry.record.status === "processing" && (entry.heardAt ?? 0) < quietSince) {
      entry.heardAt = Date.now();
      refreshRecord(id);
    }
  }
}

export function stopFiles() {
  source?.close();
  source = null;
  clearInterval(quietCheck);
  quietCheck = null;
  showStream("closed");
  files.clear();
  uploading.clear();
  more = null;
  pagesRead = 0;
  render();
}

/** Read the first page again: a file missing from it that would sort within it is gone. Older
 * pages read by scrolling are kept as they are (their files still get live events). */
async function resync() {
  const page = await api.files();
  const seen = new Set(page.items.map((record) => record.id));
  const oldest = page.items.at(-1);
  const withinPage = (record) => !page.next || !oldest || !isOlder(record, oldest);
  for (const [id, entry] of files) if (!seen.has(id) && withinPage(entry.record)) files.delete(id);
  page.items.forEach(takeRecord);
  if (pagesRead <= 1) more = page.next;
  pagesRead = Math.max(pagesRead, 1);
  for (const id of listeners.sources()) {
    if (files.has(id)) continue;
    if (page.next) refreshRecord(id); // a source on a page not read yet, or gone
    else listeners.remove(id);
  }
  render();
}

/** Sorts after `than` in the list (uploaded earlier; the same time: the smaller id). */
function isOlder(record, than) {
  const [time, thanTime] = [Date.parse(record.uploaded_at), Date.parse(than.uploaded_at)];
  return time < thanTime || (time === thanTime && record.id < than.id);
}

async function loadMoreFiles() {
  if (loadingMore || !more) return;
  loadingMore = true;
  try {
    const page = await api.files({ before: more });
    page.items.forEach(takeRecord);
    more = page.next;
    pagesRead += 1;
    render();
  } catch (error) {
    reportError(error, "Loading more files");
  } finally {
    loadingMore = false;
  }
}

// --- progress over SSE ------------------------------------------------------------------------

function connectEvents() {
  source?.close();
  source = api.events({
    onOpen: () => {
      reconnectDelay = 1000;
      showStream("open");
      resync().catch(reportError);
    },
    onProgress: applyProgress,
    onError: () => {
      const closed = source;
      retryLater(() => closed === source && probeThenReconnect());
    },
  });
}

/** Say the connection is down and when the next try is, then try then; each wait doubles. */
function retryLater(attempt) {
  showStream("down");
  setTimeout(attempt, reconnectDelay);
  reconnectDelay = Math.min(reconnectDelay * 2, 30000);
}

// after this long without Artisan, the notice also says what became of the work
const LONG_OUTAGE_MS = 2 * 60 * 1000;
let downSince = null;

function showStream(state) {
  document.body.dataset.stream = state;
  const notice = document.getElementById("connection");
  notice.hidden = state !== "down";
  if (state !== "down") {
    downSince = null;
    return;
  }
  downSince ??= Date.now();
  notice.textContent = outageNotice(Date.now() - downSince, reconnectDelay);
}

function outageNotice(downFor, retryIn) {
  const retrying = `retrying in ${Math.round(retryIn / 1000)} s…`;
  if (downFor < LONG_OUTAGE_MS) return `Lost the connection to Artisan; ${retrying}`;
  return (
    `Artisan has not answered for ${Math.round(downFor / 60000)} minutes. Files it received keep` +
    ` processing there and show here when it is back; an upload that failed must be sent again.` +
    ` Still ${retrying}`
  );
}

async function probeThenReconnect() {
  try {
    await api.files(); // a refused key shows the key screen instead of looping
    connectEvents();
  } catch (error) {
    if (error.status !== 401) retryLater(probeThenReconnect);
  }
}

function orderKey(event) {
  const finished = event.status === "ready" || event.status === "failed" ? 1 : 0;
  return [event.attempt, event.progress, event.processed_chunks, finished];
}

function isNewer(key, than) {
  if (than === null) return true;
  for (let i = 0; i < key.length; i += 1) if (key[i] !== than[i]) return key[i] > than[i];
  return false;
}

function applyProgress(event) {
  const entry = files.get(event.file_id);
  if (!entry) {
    refreshRecord(event.file_id); // uploaded elsewhere (the CLI, another tab)
    return;
  }
  const key = orderKey(event);
  if (!isNewer(key, entry.key)) return; // events can arrive out of order; never go backwards
  entry.key = key;
  entry.heardAt = Date.now();
  entry.message = event.message;
  Object.assign(entry.record, progressOf({ ...event, processing_stage: event.stage }));
  const finished = event.status !== "processing";
  if (finished || (!entry.record.file_type && event.progress >= 30)) refreshRecord(event.file_id);
  render();
}

const refreshing = new Set();
// failures already told, by file and attempt: a file seen failed when the page loads is only
// shown on the badge, one that fails while you watch is told once
const toldFailures = new Set();
const failureKey = (record) => `${record.id}:${record.attempt}`;

/** Store a record read from the API; a live event may already be further along than the read,
 * and progress never goes backwards on screen. */
function takeRecord(record) {
  const entry = files.get(record.id);
  if (!entry && record.status === "failed") toldFailures.add(failureKey(record));
  const behind = entry && record.status === "processing" && record.progress < entry.record.progress;
  files.set(record.id, {
    record: behind ? { ...record, ...progressOf(entry.record) } : record,
    key: entry?.key ?? null,
    message: behind ? entry.message : undefined,
    heardAt: Date.now(),
  });
}

function progressOf(record) {
  const { status, processing_stage, progress, processed_chunks, total_chunks } = record;
  return { status, processing_stage, progress, processed_chunks, total_chunks };
}

async function refreshRecord(id) {
  if (refreshing.has(id)) return;
  refreshing.add(id);
  try {
    takeRecord(await api.file(id));
    render();
  } catch (error) {
    if (error.status === 404) {
      files.delete(id);
      listeners.remove(id);
      render();
    }
  } finally {
    refreshing.delete(id);
  }
}

// --- uploads ------------------------------------------------------------------------------------

let uploadCounter = 0;

/** Upload every file in parallel. Uploading never narrows a question: which files answers use
 * is chosen with the tick boxes. */
export function uploadFiles(fileList) {
  return Promise.all([...fileList].map(uploadOne));
}

async function uploadOne(file) {
  const refusal = refusalOf(file);
  if (refusal) return notify(refusal, "error");
  const clientId = `upload-${(uploadCounter += 1)}`;
  uploading.set(clientId, { name: file.name, sent: 0 });
  render();
  try {
    const record = await api.upload(file, (sent) => {
      uploading.get(clientId).sent = sent;
      render();
    });
    takeRecord(record);
    if (record.duplicate) notify(`'${record.filename}' is already uploaded; using the file you have.`);
  } catch (error) {
    if (error?.status !== 401) notify(uploadFailure(file.name, error), "error"); // a 401: the key screen says it
  } finally {
    uploading.delete(clientId);
    render();
  }
}

async function deleteFile(record) {
  if (!window.confirm(`Delete '${record.filename}' and everything Artisan learned from it?`)) return;
  try {
    await api.deleteFile(record.id);
  } catch (error) {
    if (error.status !== 404) return reportError(error, `Deleting '${record.filename}'`);
  }
  files.delete(record.id);
  forgetFileChunks(record.id);
  listeners.remove(record.id);
  const dialog = document.getElementById("file-dialog");
  if (dialog.open && dialog.dataset.fileId === record.id) dialog.close();
  notify(`Deleted '${record.filename}'.`);
  render();
}

async function retryFile(record) {
  try {
    const fresh = await api.retryFile(record.id);
    files.set(record.id, { record: fresh, key: null, message: undefined });
    render();
  } catch (error) {
    reportError(error, `Retrying '${record.filename}'`);
  }
}

// --- the file button, its badge and the dropdown -----------------------------------------------

function stageText(entry) {
  if (entry.record.status === "failed") return "Failed";
  return entry.message || entry.record.progress_message;
}

function counts() {
  let processing = uploading.size;
  let ready = 0;
  let failed = 0;
  for (const { record } of files.values()) {
    if (record.status === "processing") processing += 1;
    if (record.status === "ready") ready += 1;
    if (record.status === "failed") failed += 1;
  }
  return { processing, ready, failed };
}

/** Say so when a file fails while you watch, once it is known why. */
function tellFailures() {
  for (const { record } of files.values()) {
    if (record.status !== "failed" || !record.error_message || toldFailures.has(failureKey(record))) continue;
    toldFailures.add(failureKey(record));
    notify(fileFailure(record), "error");
  }
}

function render() {
  for (const { record } of files.values()) if (record.status === "failed") listeners.remove(record.id);
  renderBadge();
  renderList();
  tellFailures();
  listeners.changed();
}

function renderBadge() {
  const button = document.getElementById("files-button");
  const badge = document.getElementById("files-badge");
  const failedBadge = document.getElementById("files-failed");
  const { processing, ready, failed } = counts();
  button.classList.toggle("busy", processing > 0);
  badge.hidden = processing === 0 && ready === 0;
  // with pages still unread, the ready files counted are only those read so far
  const atLeast = more ? "+" : "";
  badge.textContent = processing ? String(processing) : `${ready}${atLeast}`;
  failedBadge.hidden = failed === 0;
  failedBadge.textContent = String(failed);
  const state = [];
  if (processing) state.push(`${processing} processing`);
  else if (ready || !failed) state.push(`${ready}${atLeast} ready`);
  if (failed) state.push(`${failed} failed`);
  button.setAttribute("aria-label", files.size || uploading.size ? `Files: ${state.join(", ")}` : "Files");
  button.title = button.getAttribute("aria-label");
}

function renderList() {
  const list = document.getElementById("file-list");
  const rows = [...uploading.values()].map(uploadRow);
  const records = [...files.values()].sort((a, b) => b.record.uploaded_at.localeCompare(a.record.uploaded_at));
  rows.push(...records.map(fileRow));
  if (more) rows.push(moreRow("Show more files", loadMoreFiles));
  if (!rows.length) {
    rows.push(el("li", { class: "empty" }, "No files yet. Use the paperclip, or drop files on the message bar."));
  }
  // rows are rebuilt on every progress event: keep keyboard focus on the same control
  const focused = document.activeElement?.closest(".file-row") && document.activeElement;
  const focusedRow = focused?.closest(".file-row").dataset.fileId;
  const focusedLabel = focused?.getAttribute("aria-label") ?? focused?.textContent;
  list.replaceChildren(...rows);
  if (focusedRow) {
    const row = list.querySelector(`[data-file-id="${focusedRow}"]`);
    const controls = row ? [...row.querySelectorAll("button")] : [];
    (controls.find((b) => (b.getAttribute("aria-label") ?? b.textContent) === focusedLabel) ?? controls[0])?.focus();
  }
}

function uploadRow(upload) {
  // bytes sent are the upload stage, 0–10%
  const percent = Math.floor(upload.sent * 10);
  return el(
    "li",
    { class: "file-row", dataset: { status: "uploading" } },
    progressRing(percent, "processing"),
    el("div", { class: "file-main" }, el("span", { class: "file-name" }, upload.name),
      el("span", { class: "file-meta" }, el("span", { class: "stage" }, "Uploading…"))),
  );
}

function fileRow(entry) {
  const { record } = entry;
  const failed = record.status === "failed";
  return el(
    "li",
    { class: "file-row", dataset: { fileId: record.id, status: record.status } },
    progressRing(record.progress, record.status),
    el(
      "div",
      { class: "file-main" },
      el("button", { type: "button", class: "file-name link", onclick: () => openFileDetail(record.id) }, record.filename),
      el(
        "span",
        { class: "file-meta" },
        record.file_type ? el("span", { class: `tag ${record.file_type}` }, record.file_type) : null,
        el("span", { class: "stage" }, stageText(entry)),
      ),
      failed ? el("p", { class: "error-text" }, inUserWords(record.error_message || "Processing failed.")) : null,
    ),
    el(
      "span",
      { class: "file-actions" },
      failed ? iconButton("retry", `Retry ${record.filename}`, () => retryFile(record)) : null,
      sourceBox(record),
      iconButton("trash", `Delete ${record.filename}`, () => deleteFile(record)),
    ),
  );
}

/** Tick a ready file to have answers use only the ticked files. */
function sourceBox(record) {
  const usable = record.status === "ready";
  const label = `Use ${record.filename} for answers`;
  return el("input", {
    type: "checkbox",
    class: "source-box",
    checked: listeners.isSource(record.id),
    disabled: !usable,
    "aria-label": label,
    title: usable ? `${label} (answers then use only the ticked files)` : "Only a ready file can be a source",
    onchange: (event) => listeners.choose(record, event.target.checked),
  });
}

export function setupFileMenu() {
  const button = document.getElementById("files-button");
  const dropdown = document.getElementById("files-dropdown");
  const close = () => {
    dropdown.hidden = true;
    button.setAttribute("aria-expanded", "false");
  };
  button.addEventListener("click", () => {
    const opening = dropdown.hidden;
    dropdown.hidden = !opening;
    button.setAttribute("aria-expanded", String(opening));
    if (opening) dropdown.querySelector("button")?.focus();
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && !dropdown.hidden && !document.querySelector("dialog[open]")) {
      close();
      button.focus();
    }
  });
  document.addEventListener("click", (event) => {
    if (!dropdown.hidden && !dropdown.contains(event.target) && !button.contains(event.target)) close();
  });
  document.getElementById("file-dialog").addEventListener("close", () => {
    if (!dropdown.hidden) dropdown.querySelector("button")?.focus();
  });
  render();
}

// --- one file in detail ------------------------------------------------------------------------

export async function openFileDetail(id) {
  const dialog = document.getElementById("file-dialog");
  const body = dialog.querySelector(".dialog-body");
  dialog.dataset.fileId = id;
  dialog.querySelector("h2").textContent = files.get(id)?.record.filename ?? "File";
  body.replaceChildren(el("p", { class: "muted" }, "Loading…"));
  if (!dialog.open) dialog.showModal();
  try {
    const [record, chunks] = await Promise.all([api.file(id), api.chunks(id)]);
    body.replaceChildren(...fileDetail(record, chunks.items));
  } catch (error) {
    body.replaceChildren(el("p", { class: "error-text" }, error.message));
  }
}

function fileDetail(record, chunks) {
  const facts = [
    record.file_type ?? "not classified yet",
    record.status,
    formatSize(record.size),
    `${record.total_chunks} chunk${record.total_chunks === 1 ? "" : "s"}`,
    `uploaded ${formatTime(record.uploaded_at)}`,
  ];
  return [
    el("p", { class: "muted" }, facts.join(" · ")),
    el("h3", {}, "Summary"),
    summaryView(record),
    el("h3", {}, `Chunks (${chunks.length})`),
    chunks.length ? el("ol", { class: "chunks" }, chunks.map(chunkItem)) : el("p", { class: "muted" }, "No chunks yet."),
  ];
}

function summaryView(record) {
  const view = el("div", { class: "summary markdown" });
  if (record.summary) renderMarkdown(view, record.summary);
  else view.append(record.status === "ready" ? "No summary." : "The summary is written when processing ends.");
  return view;
}

function chunkItem(chunk) {
  const strategic = chunk.chunk_type === "strategic";
  const meta = [chunk.chunk_type, strategic && chunk.salience_score ? `salience ${chunk.salience_score}/10` : null,
    lineRange(chunk.line_start, chunk.line_end)].filter(Boolean).join(" · ");
  return el(
    "li",
    { class: `chunk ${chunk.chunk_type}`, dataset: { chunkId: chunk.id } },
    el("h4", {}, el("span", { class: `tag ${chunk.chunk_type}` }, `#${chunk.chunk_index + 1}`), " ", chunk.title),
    el("p", { class: "muted" }, meta),
    strategic && chunk.chunk_essence ? el("p", {}, el("strong", {}, "Essence: "), chunk.chunk_essence) : null,
    strategic && chunk.decision_arc_summary ? el("p", {}, el("strong", {}, "Decision arc: "), chunk.decision_arc_summary) : null,
    strategic
      ? el("details", {}, el("summary", {}, "Source text"), el("pre", { class: "passage" }, chunk.text))
      : el("pre", { class: "passage" }, chunk.text),
  );
}
