import type { ErrorMessage } from './error-message.js';
import { CATALOGUE, TEMPLATES } from './message-catalogue.js';
import { type Makers, type MessageEntry, makersOf, render } from './message-makers.js';
import { LAYER_TEMPLATES_DE, LAYER_TERMS_DE, LAYER_TEXTS_DE } from './texts-de.js';

/**
 * The message texts of every language, in one registry: the layer's codes and each application's (`defineMessages`),
 * English first, and the texts other languages give them (`addLanguage`). Answers are written in the language the
 * caller prefers (`Accept-Language`, negotiated by the front door); a message keeps its code and its values
 * (`ErrorMessage.source`) until then. English is the default and the fallback of a text another language lacks.
 */
type Text = MessageEntry['text'];

export const DEFAULT_LANGUAGE = 'en';

/** Every code an answer may carry: the layer's, then each application's, with its type, status and English text. */
const entries = new Map<string, MessageEntry>();
/** Per language, the text of each code or template. */
const texts = new Map<string, Map<string, Text>>();
/** Per language, the words that values given in English become (an entity's name, a type's description). */
const terms = new Map<string, Map<string, string>>();

/** Codes made from a resource's name (`Customer_InvalidTerritoryId`), and the template whose texts write them. */
const derived = new Map<string, keyof typeof TEMPLATES>();

const textsOf = (language: string) => texts.get(language) ?? texts.set(language, new Map()).get(language)!;

/**
 * Declares an application's own message codes (their type, status, English text and meaning), beside the layer's:
 * the OpenAPI document lists them, answers carrying them are written in the caller's language, and `addLanguage`
 * gives their other texts. Answers the codes by name and a maker per code, as the layer's `CODES` and `MESSAGES`.
 */
export function defineMessages<K extends Record<string, MessageEntry>>(catalogue: K): { CODES: { readonly [C in keyof K]: C }; MESSAGES: Makers<K> } {
  for (const [code, entry] of Object.entries(catalogue)) {
    const known = entries.get(code);
    // A resource may have derived the code first (its lookup field names it): the application's definition wins.
    if (known && known !== entry && !derived.has(code)) throw new Error(`message code ${code} is defined twice`);
    derived.delete(code);
    entries.set(code, entry);
    textsOf(DEFAULT_LANGUAGE).set(code, entry.text);
  }
  return makersOf(catalogue);
}

/**
 * Texts of `language` (a language tag as Accept-Language names it: `de`, `fr`, `pt-BR`) for codes of the layer or an
 * application, and the words values given in English become in it. Called once per catalogue at module load; a later
 * call for the same codes replaces their texts (an application may reword the layer's).
 */
export function addLanguage(language: string, own: Readonly<Record<string, Text>>, words: Readonly<Record<string, string>> = {}): void {
  const tag = language.toLowerCase();
  const map = textsOf(tag);
  for (const [key, text] of Object.entries(own)) map.set(key, text);
  const known = terms.get(tag) ?? terms.set(tag, new Map()).get(tag)!;
  for (const [word, translated] of Object.entries(words)) known.set(word, translated);
}

/**
 * A code made from a resource's name, written from one of the layer's templates (its messages name the template as
 * their source): listed with the others in the OpenAPI document, its texts in every language are the template's.
 */
export function deriveCode(code: string, template: keyof typeof TEMPLATES, description: string): void {
  // A code the application defined itself keeps its own texts.
  if (definedEntry(code)) return;
  if (!derived.has(code)) entries.set(code, { type: 'Validation', text: TEMPLATES[template], description });
  derived.set(code, template);
}

/** The entry of a code the layer or an application defined (not one derived from a template), else undefined. */
export function definedEntry(code: string): MessageEntry | undefined {
  return derived.has(code) ? undefined : entries.get(code);
}

/** The languages answers can be written in, English first. */
export function supportedLanguages(): string[] {
  return [...texts.keys()];
}

/** Every code an answer may carry, with its entry: the layer's and each application's. */
export function messageEntries(): ReadonlyMap<string, MessageEntry> {
  return entries;
}

/** What a shipped language lacks: `de: SalesOrder_InvalidStatus` for each code or template without a text in it. */
export function missingTexts(): string[] {
  // A derived code has the texts of its template, which is checked itself.
  const keys = [...textsOf(DEFAULT_LANGUAGE).keys()].filter((key) => !derived.has(key));
  return supportedLanguages().flatMap((language) => keys.filter((key) => !textsOf(language).has(key)).map((key) => `${language}: ${key}`));
}

/** The English template of a code, with its values as `{placeholders}` (the OpenAPI document's list of messages). */
export function templateOf(code: string): string {
  const text = textsOf(DEFAULT_LANGUAGE).get(derived.get(code) ?? code);
  if (text === undefined || typeof text === 'string') return text ?? '';
  const placeholder = (name: string) => {
    const value = `{${name}}`;
    // A value a text calls a method of (`known.join`) or compares (`n === 1` stays false) still shows its name.
    return Object.assign(Object.create(null) as object, { toString: () => value, join: () => value, toFixed: () => value, [Symbol.toPrimitive]: () => value });
  };
  const params = new Proxy({}, { get: (_, name) => (typeof name === 'string' ? placeholder(name) : undefined) });
  try {
    // A text that is its value alone (`({ why }) => why`) answers the placeholder itself.
    return String((text as (p: unknown) => unknown)(params));
  } catch {
    return entries.get(code)?.description ?? '';
  }
}

/** The text of `m` in `language`: its code's (or template's) text there with its values, else the text it has. */
export function localizedText(m: ErrorMessage, language: string): string {
  if (language === DEFAULT_LANGUAGE || !m.source) return m.message;
  const text = texts.get(language)?.get(m.source.key);
  if (text === undefined) return m.message;
  const words = terms.get(language);
  const params = words?.size && m.source.params
    ? Object.fromEntries(Object.entries(m.source.params).map(([key, value]) => [key, typeof value === 'string' ? words.get(value) ?? value : value]))
    : m.source.params;
  const predicate = render(text, params);
  return m.source.subject === undefined ? predicate : `${m.source.subject} ${predicate}`;
}

// The layer's own: its codes in English, the templates of codes made from a resource's name, and German.
defineMessages(CATALOGUE);
for (const [key, text] of Object.entries(TEMPLATES)) textsOf(DEFAULT_LANGUAGE).set(key, text);
addLanguage('de', { ...LAYER_TEXTS_DE, ...LAYER_TEMPLATES_DE }, LAYER_TERMS_DE);
