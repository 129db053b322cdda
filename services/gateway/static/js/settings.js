// Which models answer, always in view (the chip in the top bar: which model writes the answers,
// what reads the files, and whether the model answers at all), and Settings, where the admin of
// this Artisan connects a language model and an embeddings provider. Keys are write-only: the
// API says only whether one is saved, and a key field shows "saved" instead of the key.

import { api } from "./api.js";
import { el, notify, reportError } from "./ui.js";

const dialog = () => document.getElementById("settings-dialog");
const form = () => document.getElementById("settings-form");
const chip = () => document.getElementById("model-status");
const REMOTE_EMBEDDERS = new Set(["voyage", "openai"]);
const KEY_SAVED = "Saved (it is never shown). Leave empty to keep it; type a new one to replace it.";
const KEY_NONE = "Leave empty if the endpoint needs none (Ollama, vLLM).";
const KEY_ELSEWHERE = "The saved key is only sent to the address it was entered for: enter the key for this one.";
const LOCAL_MODEL_HINT = "Fills in its address and name (it needs no key). It writes the answers; the offline rules read files, as a model on this machine's CPU keeps up with answers, not with reading folders.";
const STATUS_EVERY_MS = 60_000; // a model that stops answering turns the chip within a minute

let status = null; // GET /v1/settings/models/status
let saved = null; // GET /v1/settings/models, for the admin
let dropLlmKey = false; // "Disconnect" was chosen: the saved chat key goes too
let failedTest = null; // the form's values when "Test connection" last failed, and what it said

export function setupSettings() {
  chip().addEventListener("click", openSettings);
  document.getElementById("empty-connect").addEventListener("click", openSettings);
  form().addEventListener("submit", (event) => {
    event.preventDefault();
    save();
  });
  form().addEventListener("input", showWhereKeysGo);
  document.getElementById("test-connection").addEventListener("click", testConnection);
  document.getElementById("go-offline").addEventListener("click", goOffline);
  document.getElementById("use-local-model").addEventListener("click", useLocalModel);
  setInterval(() => refreshModelStatus({ quietly: true }), STATUS_EVERY_MS);
}

/** "Answers: SmolLM2 (this machine) · Reading files: offline rules" */
const rolesSaid = (roles) => roles.map((role) => `${role.work}: ${role.by}`).join(" · ");

/** Read which models answer and show it: the chip, and the empty conversation's note (a check in
 * the background says nothing when it cannot read it: the next one will). */
export async function refreshModelStatus({ quietly = false } = {}) {
  try {
    status = await api.modelStatus();
  } catch (error) {
    if (!quietly) reportError(error, "Reading which models answer");
    return;
  }
  drawChip();
  const note = document.getElementById("empty-model");
  note.hidden = !status.offline;
  note.querySelector(".empty-model-headline").textContent = `${status.headline}.`;
  note.querySelector(".empty-model-text").textContent = ` ${status.explanation} `;
  document.getElementById("empty-connect").textContent = status.can_configure ? "Connect a model" : "How to get written answers";
  if (dialog().open) renderStatus();
}

function chipText() {
  if (status.offline) return "Offline";
  const [answers] = status.roles;
  return status.reachable === false ? `Not answering: ${status.chat.model}` : `${answers.work}: ${answers.by}`;
}

/** Offline in amber; a connected model green, or red when it does not answer. */
function drawChip() {
  const button = chip();
  const unreachable = status.reachable === false;
  button.classList.toggle("offline", status.offline);
  button.classList.toggle("unreachable", unreachable);
  const [, reading] = status.roles;
  button.replaceChildren(
    el("span", { class: "dot", "aria-hidden": "true" }),
    el("span", { class: "chip-text" }, chipText()),
    el("span", { class: "chip-more" }, status.offline ? " — answers quote your files" : ` · ${reading.work}: ${reading.by}`),
  );
  button.title = `${status.headline}. ${rolesSaid(status.roles)}. ${unreachable ? status.unreachable : status.explanation}`;
  button.setAttribute("aria-label", `Models: ${status.headline}${unreachable ? " — not answering" : ""}`);
  button.hidden = false;
}

async function openSettings() {
  if (!status) await refreshModelStatus();
  if (!status) return;
  renderStatus();
  form().hidden = true;
  if (!dialog().open) dialog().showModal();
  if (!status.can_configure) return;
  try {
    fillForm(await api.modelSettings());
  } catch (error) {
    reportError(error, "Reading the settings");
  }
}

function renderStatus() {
  document.getElementById("model-now").replaceChildren(
    el("p", { class: `model-headline${status.offline ? " offline" : ""}${status.reachable === false ? " unreachable" : ""}` }, status.headline),
    status.unreachable ? el("p", { class: "error-text unreachable-text", role: "alert" }, status.unreachable) : null,
    el("p", { class: "model-roles" }, `${rolesSaid(status.roles)}.`),
    el("p", {}, status.explanation),
    status.next_step ? el("p", { class: "next-step" }, status.next_step) : null,
    el("p", { class: "muted" }, `Search: ${status.embeddings.model} — ${status.embeddings.description}.`),
    el("p", { class: "muted weather-status" }, `Weather statistics tool (Open-Meteo): ${status.weather_tool ? "on — answers may fetch public weather archives" : "off"}.`),
    ...status.problems.map((problem) => el("p", { class: "error-text" }, problem)),
  );
}

function fillForm(settings) {
  saved = settings;
  dropLlmKey = false;
  failedTest = null;
  const fields = form().elements;
  for (const name of ["llm_base_url", "llm_model", "llm_roles", "embed_provider", "embed_base_url", "embed_model"]) {
    fields[name].value = settings[name];
  }
  fields.llm_api_key.value = "";
  fields.embed_api_key.value = "";
  fields.weather_tool.checked = settings.weather_tool;
  const minilm = fields.embed_provider.querySelector('option[value="minilm"]');
  minilm.disabled = !settings.minilm_installed && settings.embed_provider !== "minilm";
  document.getElementById("no-secrets-key").hidden = settings.can_store_keys;
  offerLocalModel(settings.local_model);
  showResult();
  showWhereKeysGo();
  form().hidden = false;
}

const address = (value) => value.trim().replace(/\/+$/, "");

/** A saved key is sent only to the address it was entered for: say so as the address changes. */
function showWhereKeysGo() {
  const fields = form().elements;
  const remote = REMOTE_EMBEDDERS.has(fields.embed_provider.value);
  for (const name of ["embed-base-url", "embed-model", "embed-api-key"]) {
    form().querySelector(`[data-field="${name}"]`).hidden = !remote;
  }
  const llmStays = address(fields.llm_base_url.value) === saved.llm_base_url && !dropLlmKey;
  const embedStays = fields.embed_provider.value === saved.embed_provider && address(fields.embed_base_url.value) === saved.embed_base_url;
  keyState(fields.llm_api_key, saved.llm_key_set, llmStays);
  keyState(fields.embed_api_key, saved.embed_key_set, embedStays);
}

function keyState(input, isSet, stays) {
  const kept = isSet && stays;
  input.placeholder = kept ? "saved" : isSet ? "enter the key for this address" : "none";
  document.getElementById(`${input.id}-hint`).textContent = kept ? KEY_SAVED : isSet ? KEY_ELSEWHERE : KEY_NONE;
}

/** The model `artisan up --model` serves here, in one click; or how to start Artisan with one. */
function offerLocalModel(local) {
  const button = document.getElementById("use-local-model");
  button.hidden = !local.running;
  button.textContent = local.running ? `Use ${local.model} (running here)` : "";
  document.getElementById("local-model-hint").textContent = local.running ? LOCAL_MODEL_HINT : local.how_to_start;
}

function useLocalModel() {
  const fields = form().elements;
  fields.llm_base_url.value = saved.local_model.base_url;
  fields.llm_model.value = saved.local_model.model;
  fields.llm_api_key.value = "";
  fields.llm_roles.value = "answers";
  dropLlmKey = true; // it needs none, and a saved key must not follow it here
  showWhereKeysGo();
  showResult(el("p", { class: "muted" }, `Save to use ${saved.local_model.model} on this machine for answers.`));
}

function goOffline() {
  form().elements.llm_base_url.value = "";
  form().elements.llm_api_key.value = "";
  dropLlmKey = true;
  showWhereKeysGo();
  showResult(el("p", { class: "muted" }, "Save to answer offline: answers will quote your files."));
}

/** The form as the API takes it: an empty key field keeps the saved key (null), unless dropped. */
function formValues(reembed = false) {
  const fields = form().elements;
  const value = (name) => fields[name].value.trim();
  return {
    llm_base_url: value("llm_base_url"),
    llm_model: value("llm_model"),
    llm_api_key: value("llm_api_key") || (dropLlmKey ? "" : null),
    llm_roles: value("llm_roles"),
    embed_provider: value("embed_provider"),
    embed_base_url: value("embed_base_url"),
    embed_model: value("embed_model"),
    embed_api_key: value("embed_api_key") || null,
    weather_tool: fields.weather_tool.checked,
    reembed,
  };
}

function showResult(...lines) {
  document.getElementById("settings-result").replaceChildren(...lines);
}

async function testConnection() {
  const button = document.getElementById("test-connection");
  button.disabled = true;
  showResult(el("p", { class: "muted" }, "Testing… (at most about 12 seconds)"));
  try {
    const tested = formValues();
    const report = await api.testModelSettings(tested);
    failedTest = report.ok ? null : { values: JSON.stringify(tested), report };
    showResult(checkLine("Language model", report.chat), checkLine("Embeddings", report.embeddings));
  } catch (error) {
    showResult(el("p", { class: "error-text" }, error.message));
  } finally {
    button.disabled = false;
  }
}

// where a model endpoint is: every user's text goes there (docs/trust-model.md)
const NETWORK_NOTES = {
  loopback: "On this machine (loopback).",
  private: "On a private network.",
  unresolved: "Its name does not resolve from this server now.",
};

function checkLine(what, check) {
  const where = NETWORK_NOTES[check.network];
  return el(
    "p",
    { class: check.ok ? "check ok" : "check failed" },
    el("span", { "aria-hidden": "true" }, check.ok ? "✓ " : "✗ "),
    el("strong", {}, `${what}: `),
    check.message,
    where ? el("span", { class: "muted network-note" }, ` ${where}`) : null,
  );
}

/** Saving what the test just failed on is allowed (the model may be starting), once confirmed. */
function saveDespiteFailedTest() {
  if (!failedTest || failedTest.values !== JSON.stringify(formValues())) return true;
  const { chat, embeddings } = failedTest.report;
  const said = [chat, embeddings].filter((check) => !check.ok).map((check) => check.message).join("\n");
  return window.confirm(`The connection test just failed:\n${said}\n\nAnswers will fail until it passes. Save anyway?`);
}

async function save(reembed = false) {
  if (!reembed && !saveDespiteFailedTest()) {
    return showResult(el("p", { class: "muted" }, "Not saved: the models stay as they were."));
  }
  let settings;
  try {
    settings = await api.saveModelSettings(formValues(reembed));
  } catch (error) {
    if (error.status === 409 && !reembed && /re-embeds/.test(error.message)) {
      if (window.confirm(`${error.message}\n\nRe-embed everything now?`)) return save(true);
      return showResult(el("p", { class: "muted" }, "Not saved: the embeddings stay as they were."));
    }
    return showResult(el("p", { class: "error-text" }, error.message));
  }
  fillForm(settings);
  await refreshModelStatus();
  const again = settings.reembedding ? ` Re-embedding ${settings.reembedding} files: they show as processing until done.` : "";
  notify(`Settings saved. ${status.headline}.${again}`);
  showResult(el("p", { class: "check ok" }, `Saved. ${status.headline}.${again}`));
}
