// Conversations: the list beside the chat (search, new, rename, export, delete), and which one
// the page shows. Each has a persona: opening one selects its persona, and choosing a persona in
// the bar opens that persona's latest conversation (or a new one), so one advisor's context never
// holds the last turns you had with another. The one shown is remembered across reloads.

import { api } from "./api.js";
import { loadHistory, updateEmptyState } from "./chat.js";
import { currentConversation, rememberedConversation, setCurrentConversation } from "./current_conversation.js";
import { refreshMemory } from "./memory.js";
import { avatar, currentPersona, persona, showPersona } from "./personas.js";
import { el, iconButton, moreRow, notify, reportError, saveBlob } from "./ui.js";

const SEARCH_DELAY_MS = 250;
const WIDE = window.matchMedia("(min-width: 900px)");

let currentPersonaName = null; // the persona of the conversation shown
let items = []; // the listed conversations
let next = null; // cursor of the next page of the list
let query = "";
let choosing = 0; // the latest persona choice: an earlier one that answers later is dropped

const panel = () => document.getElementById("conversations-panel");
const list = () => document.getElementById("conversation-list");
const button = () => document.getElementById("conversations-button");

export function setupConversations() {
  button().addEventListener("click", () => {
    setPanelOpen(panel().hidden);
    if (!panel().hidden) document.getElementById("conversation-search").focus();
  });
  document.getElementById("new-conversation").addEventListener("click", startNew);
  const search = document.getElementById("conversation-search");
  let timer = null;
  search.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      query = search.value.trim();
      refreshConversations();
    }, SEARCH_DELAY_MS);
  });
  document.addEventListener("turn-deleted", () => refreshConversations()); // its count changed
  panel().addEventListener("keydown", (event) => {
    if (event.key === "Escape" && !WIDE.matches && !event.target.matches(".rename-input")) {
      setPanelOpen(false);
      button().focus();
    }
  });
  // open beside the chat on a wide screen (listed once the key is known), a tap away on a phone
  panel().hidden = !WIDE.matches;
  button().setAttribute("aria-expanded", String(WIDE.matches));
}

function setPanelOpen(open) {
  panel().hidden = !open;
  button().setAttribute("aria-expanded", String(open));
  if (open) refreshConversations();
}

/** On opening the page: the conversation shown last time, else the latest one, else none. */
export async function openStartingConversation() {
  const asked = ++choosing;
  const remembered = rememberedConversation();
  let chosen = null;
  if (remembered) chosen = await api.conversation(remembered).catch(() => null);
  if (!chosen) chosen = (await api.conversations({ limit: 1 })).items[0] ?? null;
  // a question sent or a persona chosen meanwhile wins: that is where the person is now
  const acted = asked !== choosing || document.querySelector("#messages .turn");
  if (!acted) await show(chosen);
  await refreshConversations();
}

/** The persona bar chose `chosen`: show its latest conversation, or a new one with it. */
export async function personaChosen(chosen) {
  const asked = ++choosing;
  // at once, not in the other persona's conversation any more: a question asked now goes to this
  // persona's latest conversation (the gateway's rule), and its answer names it
  remember(null);
  currentPersonaName = chosen.name;
  loadHistory();
  try {
    const latest = (await api.conversations({ persona: chosen.name, limit: 1 })).items[0] ?? null;
    const asking = document.querySelector("#messages .turn"); // a question went out meanwhile
    if (asked === choosing && !asking) await show(latest, chosen.name);
  } catch (error) {
    reportError(error, "Opening the conversation");
  }
}

/** An answer was stored: a new conversation is now the one the question started. */
export function conversationAnswered(done) {
  const shownPersona = currentPersonaName ?? currentPersona().name;
  if (currentConversation() === null && done.persona === shownPersona) remember(done.conversation_id);
  refreshConversations();
}

/** Show `conversation` (null: a new one with `personaName`), selecting its persona. */
async function show(conversation, personaName = conversation?.persona ?? currentPersona().name) {
  choosing += 1;
  remember(conversation?.id ?? null);
  currentPersonaName = personaName;
  if (currentPersona().name !== personaName) {
    showPersona(personaName);
    refreshMemory();
  }
  markCurrent();
  await loadHistory();
  updateEmptyState();
}

function remember(id) {
  setCurrentConversation(id);
  markCurrent();
}

async function startNew() {
  const shown = items.find((item) => item.id === currentConversation());
  if (shown?.turn_count === 0 && shown.persona === currentPersona().name) {
    document.getElementById("message").focus(); // it is new already: ask in it
    return;
  }
  try {
    const started = await api.startConversation(currentPersona().name);
    await show(started);
    await refreshConversations();
    document.getElementById("message").focus();
  } catch (error) {
    reportError(error, "Starting a conversation");
  }
}

// --- the list -------------------------------------------------------------------------------------

export async function refreshConversations() {
  if (panel().hidden) return;
  try {
    const page = await api.conversations({ q: query, limit: 50 });
    items = page.items;
    next = page.next;
    render();
  } catch (error) {
    reportError(error, "Loading conversations");
  }
}

let loadingMore = false;

async function loadMore() {
  if (loadingMore || !next) return;
  loadingMore = true;
  try {
    const page = await api.conversations({ q: query, limit: 50, before: next });
    items = items.concat(page.items);
    next = page.next;
    render();
  } catch (error) {
    reportError(error, "Loading more conversations");
  } finally {
    loadingMore = false;
  }
}

function render() {
  // a list read again under the keyboard keeps its place: the same control of the same row
  const focused = list().contains(document.activeElement) ? document.activeElement : null;
  const focusedRow = focused?.closest(".conversation-row");
  const controls = (item) => [...item.querySelectorAll("button")];
  const place = focusedRow ? [focusedRow.dataset.conversationId, controls(focusedRow).indexOf(focused)] : null;
  const rows = items.map(row);
  if (!rows.length) {
    const empty = query ? `No conversation holds “${query}”.` : "No conversations yet: ask a question to start one.";
    rows.push(el("li", { class: "empty muted" }, empty));
  }
  list().replaceChildren(...rows);
  if (next) list().append(moreRow("Show more", loadMore));
  markCurrent();
  const again = place && list().querySelector(`[data-conversation-id="${place[0]}"]`);
  if (again) controls(again)[Math.max(place[1], 0)]?.focus();
}

function markCurrent() {
  for (const item of list().querySelectorAll(".conversation-row")) {
    const here = item.dataset.conversationId === currentConversation();
    item.classList.toggle("current", here);
    item.querySelector(".conversation-open")?.toggleAttribute("aria-current", here);
  }
}

function row(conversation) {
  const speaker = persona(conversation.persona);
  const turns = `${conversation.turn_count} turn${conversation.turn_count === 1 ? "" : "s"}`;
  return el(
    "li",
    { class: "conversation-row", dataset: { conversationId: conversation.id, persona: conversation.persona } },
    el(
      "button",
      { type: "button", class: "conversation-open", onclick: () => open(conversation) },
      avatar(speaker),
      el(
        "span",
        { class: "conversation-text" },
        el("span", { class: "conversation-title" }, conversation.title),
        el("span", { class: "conversation-meta" }, `${speaker.display_name} · ${turns} · ${lately(conversation.updated_at)}`),
      ),
    ),
    el(
      "div",
      { class: "conversation-actions" },
      iconButton("edit", `Rename “${conversation.title}”`, (event) => rename(conversation, event.currentTarget.closest("li"))),
      iconButton("download", `Export “${conversation.title}” as Markdown`, () => exportMarkdown(conversation)),
      iconButton("trash", `Delete “${conversation.title}”`, () => remove(conversation)),
    ),
  );
}

const TIME = new Intl.DateTimeFormat(undefined, { timeStyle: "short" });
const DAY = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric" });
const DATE = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" });

/** When it was last active, as short as will do: "9:05 AM", "Mar 2", "Mar 2, 2025". */
function lately(iso) {
  const moment = new Date(iso);
  const now = new Date();
  if (moment.toDateString() === now.toDateString()) return TIME.format(moment);
  return moment.getFullYear() === now.getFullYear() ? DAY.format(moment) : DATE.format(moment);
}

async function open(conversation) {
  await show(conversation);
  if (!WIDE.matches) setPanelOpen(false);
}

/** Rename in place: Enter or leaving the box saves, Escape cancels. */
function rename(conversation, item) {
  const title = item.querySelector(".conversation-title");
  const input = el("input", { class: "rename-input", value: conversation.title, "aria-label": "Conversation title", maxlength: "200" });
  let done = false;
  const finish = async (save) => {
    if (done) return;
    done = true;
    const wanted = input.value.trim();
    if (save && wanted && wanted !== conversation.title) {
      try {
        await api.updateConversation(conversation.id, { title: wanted });
      } catch (error) {
        reportError(error, "Renaming the conversation");
      }
    }
    await refreshConversations();
    list().querySelector(`[data-conversation-id="${conversation.id}"] .conversation-open`)?.focus();
  };
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter") finish(true);
    if (event.key === "Escape") {
      event.stopPropagation();
      finish(false);
    }
  });
  input.addEventListener("blur", () => finish(true));
  title.replaceWith(input);
  input.focus();
  input.select();
}

async function exportMarkdown(conversation) {
  try {
    const { name, blob } = await api.exportConversation(conversation.id);
    saveBlob(name, blob);
  } catch (error) {
    reportError(error, "Exporting the conversation");
  }
}

async function remove(conversation) {
  const question = `Delete “${conversation.title}”? Its ${conversation.turn_count} turns are removed, with what Artisan learned from them.`;
  if (!window.confirm(question)) return;
  try {
    await api.deleteConversation(conversation.id);
  } catch (error) {
    if (error.status !== 404) return reportError(error, "Deleting the conversation");
  }
  notify(`Deleted “${conversation.title}”.`);
  refreshMemory(); // instructions and facts from its turns are gone too
  if (conversation.id === currentConversation()) await personaChosen(persona(conversation.persona));
  await refreshConversations();
}
