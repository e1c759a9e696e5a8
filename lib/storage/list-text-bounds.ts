import type { FieldCriterion } from '../validation/criteria.js';

/**
 * Lower-casing lengthens a text only through U+0130 ('İ'), which becomes 'i' and U+0307 (a combining dot above), and
 * only on PostgreSQL (SQLite's lower() is ASCII only). A folded criterion without that dot can only match
 * characters that came one for one from the stored value, so its length is bounded by the field's; one with the dot
 * (or an 'İ' that becomes one) may match a folded value up to twice as long.
 */
const mayMatchExpanded = (text: string) => /[\u0130\u0307]/.test(text);

/**
 * Whether `criterion` cannot match any value of a text field that holds at most `max` characters: an exact match
 * (EQ, every value of In) longer than `max`, or a case-insensitive CN or SW longer than any folded value. Such a list
 * is empty, and reading it would only cost: a CN of thousands of characters makes SQLite's trigram index compare
 * thousands of trigrams per row (12.7 s for 300 customers, issue 20). Negations match every row instead, and are read.
 */
export function cannotMatch(criterion: FieldCriterion<unknown>, max: number | undefined): boolean {
  if (max === undefined || criterion.values.length === 0) return false;
  const texts = criterion.values.filter((v): v is string => typeof v === 'string');
  if (texts.length < criterion.values.length) return false;
  switch (criterion.operator) {
    case 'EQ':
    case 'In':
      return texts.every((v) => v.length > max);
    case 'CN':
    case 'SW':
      return texts.every((v) => v.length > (mayMatchExpanded(v) ? 2 * max : max));
    default:
      return false;
  }
}
