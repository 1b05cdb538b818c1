// The client's own words (its chrome: headings, buttons, prompts) in the player's language;
// the game's words come from the API (event descriptions, rule sentences), asked for in the
// same language by the Accept-Language header of every request (api.js). English is the
// key; `words-<lang>.json` beside this file holds the other languages' sentences, with game
// terms as docs/glossary.md gives them.

export const LANGUAGES = { en: "English", de: "Deutsch", hu: "Magyar", it: "Italiano" };
const STORE = "tigris.language";
let words = {};

function chosen() {
  const stored = localStorage.getItem(STORE);
  if (stored && stored in LANGUAGES) return stored;
  const browser = (navigator.language || "en").slice(0, 2).toLowerCase();
  return browser in LANGUAGES ? browser : "en";
}

export const language = chosen();

export async function loadWords() {
  document.documentElement.lang = language;
  if (language === "en") return;
  const response = await fetch(`/play/words-${language}.json`, { cache: "no-cache" });
  if (response.ok) words = await response.json();
}

export function setLanguage(code) {
  localStorage.setItem(STORE, code);
}

// `text` in the chosen language, its {name} slots filled from `values`.
export function t(text, values = {}) {
  const found = words[text] ?? text;
  return found.replace(/\{(\w+)\}/g, (slot, name) => (name in values ? String(values[name]) : slot));
}
