// The persona picker: a radio group of avatars (arrow keys move, the choice is remembered).

import { el } from "./ui.js";

const CHOICE_STORAGE = "artisan.persona";
const personas = new Map(); // name -> {name, display_name, role, initial, description}
let current = null;
let onChange = () => {};

export function persona(name) {
  return personas.get(name) ?? { name, display_name: name, role: "", initial: name.slice(0, 1).toUpperCase() };
}

export function currentPersona() {
  return persona(current);
}

export function setupPersonas(items, changed) {
  personas.clear();
  for (const item of items) personas.set(item.name, item);
  onChange = changed;
  const remembered = localStorage.getItem(CHOICE_STORAGE);
  current = personas.has(remembered) ? remembered : items[0]?.name;
  render();
}

/** Show `name` as chosen, without the change handler: a conversation opened with its persona. */
export function showPersona(name) {
  if (!personas.has(name) || name === current) return;
  current = name;
  localStorage.setItem(CHOICE_STORAGE, name);
  render();
}

function choose(name, { focus = false } = {}) {
  if (name === current) return;
  current = name;
  localStorage.setItem(CHOICE_STORAGE, name);
  render();
  if (focus) document.querySelector(`#personas [data-persona="${name}"]`)?.focus();
  onChange(currentPersona());
}

function render() {
  const group = document.getElementById("personas");
  group.replaceChildren(
    ...[...personas.values()].map((item) => {
      const checked = item.name === current;
      return el(
        "button",
        {
          type: "button",
          role: "radio",
          class: "persona",
          "aria-checked": String(checked),
          tabindex: checked ? "0" : "-1",
          title: `${item.display_name} — ${item.role}`,
          dataset: { persona: item.name },
          onclick: () => choose(item.name),
          onkeydown: (event) => moveWithArrows(event, item.name),
        },
        avatar(item),
        el("span", { class: "persona-text" }, el("span", { class: "persona-name" }, item.display_name),
          el("span", { class: "persona-role" }, item.role)),
      );
    }),
  );
  const chosen = currentPersona();
  document.getElementById("message").placeholder = `Message ${chosen.display_name}…`;
}

export function avatar(item) {
  return el("span", { class: `avatar avatar-${item.name}`, "aria-hidden": "true" }, item.initial);
}

function moveWithArrows(event, name) {
  const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key];
  if (!step) return;
  event.preventDefault();
  const names = [...personas.keys()];
  const next = names[(names.indexOf(name) + step + names.length) % names.length];
  choose(next, { focus: true });
}
