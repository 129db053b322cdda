// What an upload may be — the file types and size from GET /v1/formats, the table the server
// checks uploads against — and what to tell people when a file can't be taken or read.

import { api } from "./api.js";
import { formatSize, inUserWords } from "./ui.js";

let rules = null; // {extensions: [".csv", …], maxBytes}

/** Read the rules once; the file picker then offers only the types Artisan reads. */
export async function loadUploadRules() {
  if (rules) return;
  try {
    const answer = await api.formats();
    rules = { extensions: answer.items.map((format) => format.extension), maxBytes: answer.max_upload_bytes };
  } catch {
    return; // the server checks every upload all the same
  }
  document.getElementById("file-input").accept = rules.extensions.join(",");
}

/** Why a file can't be uploaded, told before it is sent; null when it may be sent. */
export function refusalOf(file) {
  if (!rules) return null;
  const extension = extensionOf(file.name);
  if (!rules.extensions.includes(extension)) {
    const kind = extension ? `${extension} files` : "files without an extension";
    return `Artisan can't read ${kind} like '${file.name}'. Save it as one of ${rules.extensions.join(", ")} and upload that.`;
  }
  if (file.size > rules.maxBytes) {
    return `'${file.name}' is larger than the ${formatSize(rules.maxBytes)} one file may be; split it into smaller files and upload those.`;
  }
  return null;
}

/** The server's extension of a name: what follows its last dot, as the gateway reads it (a
 * name's trailing dots and spaces are dropped, a dot file has no extension). */
function extensionOf(name) {
  const trimmed = name.replace(/[ .]+$/, "");
  const dot = trimmed.lastIndexOf(".");
  return dot > 0 ? trimmed.slice(dot).toLowerCase() : "";
}

/** An upload the server refused, naming the file once. */
export function uploadFailure(name, error) {
  const message = inUserWords(error?.message || String(error));
  return message.includes(name) ? message : `'${name}': ${message}`;
}

/** A file that could not be processed, and what to do about it. */
export function fileFailure(record) {
  const reason = record.error_message ? inUserWords(record.error_message) : "try it again, or upload another copy";
  return `Artisan couldn't read '${record.filename}': ${reason}${/[.!?]$/.test(reason) ? "" : "."}`;
}
