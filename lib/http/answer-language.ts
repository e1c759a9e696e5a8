import { DEFAULT_LANGUAGE, supportedLanguages } from '../envelope/languages.js';
import type { AppContext } from './context.js';

/**
 * The language an answer's messages are written in: the supported one the caller weighs highest in Accept-Language
 * (RFC 9110 q-weights; `de-AT` matches `de`, as Koa's negotiator matches a range's prefix), English when none is.
 * The answer says which (Content-Language) and that it depends on the header (Vary), so a cache keeps one per language.
 */
export function answerLanguage(ctx: AppContext): string {
  const language = chooseLanguage(ctx);
  ctx.set('Content-Language', language);
  ctx.vary('Accept-Language');
  return language;
}

/** The language `answerLanguage` picks, without saying so in headers (for a body kept to be answered later). */
export function chooseLanguage(ctx: AppContext): string {
  const chosen = ctx.acceptsLanguages(supportedLanguages());
  return typeof chosen === 'string' ? chosen : DEFAULT_LANGUAGE;
}
