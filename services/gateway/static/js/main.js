// Start-up: ask for the API key once (kept in this browser), then wire the views together.

import { api, forgetEverything, onUnauthorized, storedKey, storeKey } from "./api.js";
import { clearConversation, loadHistory, onAnswered, sendMessage, setupHistoryPaging, stopAnswer, updateEmptyState } from "./chat.js";
import { chooseSource, chosenSources, dropSource, isSource, renderSources, setMessageLimit, setupComposer } from "./composer.js";
import { conversationAnswered, openStartingConversation, personaChosen, setupConversations } from "./conversations.js";
import { setupDocumentsPanel } from "./documents.js";
import { onFileEvents, setupFileMenu, startFiles, stopFiles } from "./files.js";
import { refreshMemory, setupMemoryPanel } from "./memory.js";
import { setupPersonas } from "./personas.js";
import { refreshModelStatus, setupSettings } from "./settings.js";
import { reportError } from "./ui.js";

const keyScreen = document.getElementById("key-screen");
const app = document.getElementById("app");

async function start() {
  setupComposer(sendMessage, stopAnswer);
  setupFileMenu();
  setupMemoryPanel();
  setupDocumentsPanel();
  setupConversations();
  setupSettings();
  setupHistoryPaging();
  onAnswered(conversationAnswered);
  onFileEvents({ isSource, choose: chooseSource, remove: dropSource, changed: renderSources, sources: chosenSources });
  onUnauthorized((error) => askForKey(error.message));
  document.getElementById("sign-out").addEventListener("click", signOut);
  document.getElementById("key-form").addEventListener("submit", submitKey);

  // `artisan up` can print a link with the key in the fragment, which never reaches a server
  const fromLink = new URLSearchParams(location.hash.slice(1)).get("key");
  if (fromLink) {
    history.replaceState(null, "", location.pathname);
    await connect(fromLink);
  } else if (storedKey()) {
    await connect(storedKey());
  } else {
    askForKey();
  }
}

async function submitKey(event) {
  event.preventDefault();
  const input = document.getElementById("key-input");
  const key = input.value.trim();
  if (!key) return showKeyError("Paste the API key that `artisan up` printed.");
  await connect(key);
}

/** Check the key with a real call; on success keep it and open the app. */
async function connect(key) {
  let personas;
  try {
    personas = await api.personas(key);
  } catch (error) {
    askForKey(error.status === 401 ? "That key was refused: check it and paste it again." : error.message);
    return;
  }
  if (key !== storedKey() && forgetEverything() > 0) {
    // another key than the one this browser kept: the previous person's drafts, conversation
    // and sources go, and the page starts over with this key (nothing of theirs in memory)
    storeKey(key);
    location.reload();
    return;
  }
  storeKey(key);
  keyScreen.hidden = true;
  app.hidden = false;
  setupPersonas(personas.items, (chosen) => {
    updateEmptyState();
    refreshMemory();
    personaChosen(chosen);
  });
  document.getElementById("message").focus();
  api.chatLimits().then((limits) => setMessageLimit(limits.max_message_chars), (error) => reportError(error, "Reading the message limit"));
  refreshModelStatus();
  startFiles();
  try {
    await openStartingConversation();
  } catch (error) {
    reportError(error, "Loading the conversation");
  }
}

/** Leave nothing for the next person at this browser: every entry Artisan keeps in it goes
 * (the key, drafts, the open conversation, chosen sources, the persona), and the page loads
 * again, so nothing stays in memory either. */
function signOut() {
  forgetEverything();
  // what the page may still write while it unloads (an answer cut short puts its question back
  // in the box) goes too
  addEventListener("pagehide", forgetEverything);
  location.reload();
}

function askForKey(message = "") {
  stopFiles();
  clearConversation();
  app.hidden = true;
  keyScreen.hidden = false;
  showKeyError(message);
  document.getElementById("key-input").focus();
}

function showKeyError(message) {
  const error = document.getElementById("key-error");
  error.textContent = message;
  error.hidden = !message;
}

start();
