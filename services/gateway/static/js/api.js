// The public REST + SSE API, and nothing else: every call the client makes goes through here.

const KEY_STORAGE = "artisan.apiKey";

export class ApiError extends Error {
  constructor(status, detail) {
    super(detail);
    this.status = status;
  }
}

export const NETWORK_DOWN =
  "Can't reach Artisan. Check that it is running (`artisan up`); this page reconnects by itself.";

export function storedKey() {
  return localStorage.getItem(KEY_STORAGE);
}

export function storeKey(key) {
  localStorage.setItem(KEY_STORAGE, key);
}

/** Everything this client keeps in the browser is under this prefix (the key, drafts, the open
 * conversation, chosen sources, the persona): sign-out removes it all. */
const STORAGE_PREFIX = "artisan.";

/** Remove every entry Artisan keeps in this browser; how many there were. */
export function forgetEverything() {
  let removed = 0;
  for (const storage of [localStorage, sessionStorage]) {
    for (const name of Object.keys(storage)) {
      if (name.startsWith(STORAGE_PREFIX)) {
        storage.removeItem(name);
        removed += 1;
      }
    }
  }
  return removed;
}

/** Listeners told when the key is refused (401), so the page can ask for a new one. */
const unauthorizedListeners = new Set();
export function onUnauthorized(listener) {
  unauthorizedListeners.add(listener);
}

async function send(path, { method = "GET", json, body, key = storedKey(), signal } = {}) {
  const headers = { Authorization: `Bearer ${key}` };
  if (json !== undefined) {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify(json);
  }
  let response;
  try {
    response = await fetch(path, { method, headers, body, signal });
  } catch (error) {
    if (error.name === "AbortError") throw error;
    throw new ApiError(0, NETWORK_DOWN);
  }
  if (!response.ok) {
    const error = new ApiError(response.status, await errorDetail(response));
    if (response.status === 401) unauthorizedListeners.forEach((listener) => listener(error));
    throw error;
  }
  return response;
}

async function errorDetail(response) {
  try {
    const payload = await response.json();
    if (typeof payload.detail === "string") return payload.detail;
    // FastAPI's validation errors are a list of {loc, msg}
    if (Array.isArray(payload.detail)) {
      return payload.detail.map((item) => `${item.loc?.slice(1).join(".")}: ${item.msg}`).join("; ");
    }
  } catch {
    // not JSON: fall through to the status text
  }
  return `${response.status} ${response.statusText || "error"}: try again.`;
}

function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

const MAX_UPLOAD_WAITS = 20;

/** One upload request (XHR: fetch has no upload progress); one per file, so each fails alone. */
function uploadOnce(file, onProgress) {
  const form = new FormData();
  form.append("files", file, file.name);
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open("POST", "/v1/files");
    request.setRequestHeader("Authorization", `Bearer ${storedKey()}`);
    request.upload.onprogress = (event) => event.lengthComputable && onProgress(event.loaded / event.total);
    request.onerror = () => reject(new ApiError(0, NETWORK_DOWN));
    request.onload = () => {
      const payload = parseJson(request.responseText);
      if (request.status === 202) return resolve(payload.items[0]);
      const detail = typeof payload?.detail === "string" ? payload.detail : `${request.status}: upload failed; try again.`;
      const error = new ApiError(request.status, detail);
      const retryAfter = request.getResponseHeader("Retry-After");
      if (request.status === 429 && retryAfter !== null) error.retryAfter = Number(retryAfter);
      if (request.status === 401) unauthorizedListeners.forEach((listener) => listener(error));
      reject(error);
    };
    request.send(form);
  });
}

/** A query string of the parameters that have a value. */
function query(params = {}) {
  return new URLSearchParams(Object.entries(params).filter(([, value]) => value !== undefined && value !== null && value !== "")).toString();
}

/** A file the API sends as an attachment: its name (from Content-Disposition) and its bytes. */
async function download(path, fallbackName) {
  const response = await send(path);
  const name = /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") ?? "")?.[1];
  return { name: name ?? fallbackName, blob: await response.blob() };
}

async function getJson(path, options) {
  const response = await send(path, options);
  return response.json();
}

export const api = {
  personas: (key) => getJson("/v1/personas", { key }),
  turns: (before, conversationId) => getJson(`/v1/turns?${query({ limit: 20, before, conversation_id: conversationId })}`),
  turn: (id) => getJson(`/v1/turns/${id}`),
  star: (id, starred) => getJson(`/v1/turns/${id}/star`, { method: starred ? "POST" : "DELETE" }),
  deleteTurn: (id) => send(`/v1/turns/${id}`, { method: "DELETE" }),
  formats: () => getJson("/v1/formats"),
  files: (params) => getJson(`/v1/files?${query(params)}`),
  file: (id) => getJson(`/v1/files/${id}`),
  chunks: (id) => getJson(`/v1/files/${id}/chunks`),
  deleteFile: (id) => send(`/v1/files/${id}`, { method: "DELETE" }),
  retryFile: (id) => getJson(`/v1/files/${id}/retry`, { method: "POST" }),
  instructions: (persona) => getJson(`/v1/instructions?persona=${encodeURIComponent(persona)}`),
  memory: (params) => getJson(`/v1/memory?${query(params)}`),
  deleteFact: (id) => send(`/v1/memory/${id}`, { method: "DELETE" }),
  conversations: (params) => getJson(`/v1/conversations?${query(params)}`),
  conversation: (id) => getJson(`/v1/conversations/${id}`),
  startConversation: (persona) => getJson("/v1/conversations", { method: "POST", json: { persona } }),
  updateConversation: (id, change) => getJson(`/v1/conversations/${id}`, { method: "PATCH", json: change }),
  deleteConversation: (id) => send(`/v1/conversations/${id}`, { method: "DELETE" }),

  exportConversation: (id) => download(`/v1/conversations/${id}/export`, "conversation.md"),
  documents: (params) => getJson(`/v1/documents?${query(params)}`),
  document: (id) => getJson(`/v1/documents/${id}`),
  exportDocument: (id) => download(`/v1/documents/${id}/export`, "document.md"),
  deleteDocument: (id) => send(`/v1/documents/${id}`, { method: "DELETE" }),
  modelStatus: () => getJson("/v1/settings/models/status"),
  modelSettings: () => getJson("/v1/settings/models"),
  saveModelSettings: (settings) => getJson("/v1/settings/models", { method: "PUT", json: settings }),
  testModelSettings: (settings) => getJson("/v1/settings/models/test", { method: "POST", json: settings }),

  /**
   * Upload one file, reporting the fraction of bytes sent. A folder dropped at once can meet
   * the upload rate limit: a 429 with Retry-After is waited out and sent again.
   */
  async upload(file, onProgress = () => {}) {
    for (let waits = 0; ; waits += 1) {
      try {
        return await uploadOnce(file, onProgress);
      } catch (error) {
        if (error.retryAfter === undefined || waits >= MAX_UPLOAD_WAITS) throw error;
        onProgress(0);
        await new Promise((resume) => setTimeout(resume, error.retryAfter * 1000));
      }
    }
  },

  /**
   * Progress of every file, read with fetch rather than EventSource: EventSource cannot send the
   * key in a header, and a key in the URL would end up in logs and traces. Calls onOpen once the
   * stream answers, onProgress per event, and onError once when it fails or ends; close() stops it.
   */
  events({ onOpen, onProgress, onError }) {
    const controller = new AbortController();
    const { signal } = controller;
    (async () => {
      try {
        const response = await send("/v1/events", { signal });
        onOpen();
        for await (const { event, data } of serverSentEvents(response.body, signal)) {
          if (event === "progress") onProgress(data);
        }
        if (!signal.aborted) onError(new ApiError(0, NETWORK_DOWN));
      } catch (error) {
        if (!signal.aborted) onError(error);
      }
    })();
    return { close: () => controller.abort() };
  },

  chatLimits: () => getJson("/v1/chat/limits"),

  /**
   * POST /v1/chat: yields {event, data} as the server sends them (token…, then done or error),
   * after an `accepted` event of its own once the server has taken the question.
   */
  async *chat(request, signal) {
    const response = await send("/v1/chat", { method: "POST", json: request, signal });
    yield { event: "accepted", data: null };
    yield* serverSentEvents(response.body, signal);
  },
};

/** Parse a text/event-stream body (fetch, not EventSource: the chat is a POST). */
export async function* serverSentEvents(body, signal) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let event = "message";
  let data = [];
  try {
    while (!signal?.aborted) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      const lines = buffer.split(/\r\n|\r|\n/);
      buffer = lines.pop();
      for (const line of lines) {
        if (line === "") {
          if (data.length) yield { event, data: JSON.parse(data.join("\n")) };
          event = "message";
          data = [];
        } else if (line.startsWith("event:")) {
          event = line.slice(6).trim();
        } else if (line.startsWith("data:")) {
          data.push(line.slice(5).replace(/^ /, ""));
        }
        // comments (": ping") and ids are not needed here
      }
    }
  } finally {
    reader.releaseLock();
  }
}
