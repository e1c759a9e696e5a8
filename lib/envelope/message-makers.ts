import { type ErrorMessage, type ErrorType, type MessageOptions, type Severity, message } from './error-message.js';

/**
 * What a catalogue says of one code: its type, the status it implies, its English text and what it means. The layer's
 * catalogue (message-catalogue.ts) and each application's (`defineMessages`) are made of these.
 */
export interface MessageEntry {
  type: ErrorType;
  /** The status an answer carrying it gets, set on the message (without it, the status its type implies). */
  status?: number;
  severity?: Severity;
  /** `never` takes a function of any parameters: each entry's own are read back by `ParamsOf`. */
  text: string | ((params: never) => string);
  /** One line for the API document. */
  description: string;
}

/** The values a text takes (an empty object for a fixed text). */
export type ParamsOf<T> = T extends (params: infer P) => string ? P : Record<never, never>;
/** A text's values and the message's own options in one object; it may be left out when nothing is required. */
export type ArgsOf<T> = Record<never, never> extends ParamsOf<T>
  ? [options?: ParamsOf<T> & MessageOptions & { type?: ErrorType }]
  : [options: ParamsOf<T> & MessageOptions & { type?: ErrorType }];

/**
 * The texts of a catalogue in another language: one for every code (the compiler refuses a missing one), taking the
 * same values as the English one.
 */
export type TextsOf<K extends Record<string, MessageEntry>> = { readonly [C in keyof K]: string | ((params: ParamsOf<K[C]['text']>) => string) };

/** The message of each code of a catalogue by name: `MESSAGES.Route_NotFound({ method, path })`. */
export type Makers<K extends Record<string, MessageEntry>> = { readonly [C in keyof K]: (...args: ArgsOf<K[C]['text']>) => ErrorMessage };

const OPTION_KEYS = new Set(['property', 'status', 'severity', 'type']);

/** A text rendered with its values. */
export function render(text: MessageEntry['text'], params: object | undefined): string {
  return typeof text === 'string' ? text : (text as (p: unknown) => string)(params ?? {});
}

/**
 * The message of `code` from its entry: its catalogued type, severity, status and English text. The text's values
 * stay on the message (`source`, never sent) so that the answer can be written in the caller's language.
 */
export function entryMessage(code: string, entry: MessageEntry, options: (MessageOptions & { type?: ErrorType }) | undefined): ErrorMessage {
  const all: Record<string, unknown> = { ...options };
  const status = options?.status ?? entry.status;
  const m = message(options?.type ?? entry.type, code, render(entry.text, all), {
    severity: options?.severity ?? entry.severity,
    ...(options?.property !== undefined ? { property: options.property } : {}),
    ...(status !== undefined ? { status } : {}),
  });
  const params = Object.fromEntries(Object.entries(all).filter(([key]) => !OPTION_KEYS.has(key)));
  m.source = { key: code, params };
  return m;
}

/** Codes by name and a maker per code, for a catalogue's entries. */
export function makersOf<K extends Record<string, MessageEntry>>(entries: K): { CODES: { readonly [C in keyof K]: C }; MESSAGES: Makers<K> } {
  const codes = Object.keys(entries);
  return {
    CODES: Object.fromEntries(codes.map((code) => [code, code])) as { readonly [C in keyof K]: C },
    MESSAGES: Object.fromEntries(codes.map((code) => [code, (options?: MessageOptions) => entryMessage(code, entries[code], options)])) as unknown as Makers<K>,
  };
}
