import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from './processes.js';

/** The text of a Markdown file of the project, by its path from the project root. */
export const readDoc = (path: string): string => readFileSync(join(projectRoot, path), 'utf8');

/** The Markdown with its fenced code blocks blanked out (line numbers kept): links and headings inside are code. */
export function withoutCode(markdown: string): string {
  let fenced = false;
  return markdown.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line;
  }).join('\n');
}

/** The fenced code blocks of one language (```sh), each with the line its fence opens on. */
export function codeBlocks(markdown: string, language: string): { line: number; code: string }[] {
  const blocks: { line: number; code: string }[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== `\`\`\`${language}`) continue;
    const start = i;
    const body: string[] = [];
    while (++i < lines.length && !/^\s*```\s*$/.test(lines[i])) body.push(lines[i]);
    blocks.push({ line: start + 1, code: body.join('\n') });
  }
  return blocks;
}

/** The rows of the first table whose header row is `header` (cells trimmed), header and separator left out. */
export function tableRows(markdown: string, header: string[]): string[][] {
  const lines = markdown.split('\n');
  const cells = (line: string) => line.trim().replace(/^\||\|$/g, '').split(/(?<!\\)\|/).map((c) => c.trim());
  const start = lines.findIndex((l) => l.trim().startsWith('|') && cells(l).join('\u0000') === header.join('\u0000'));
  if (start < 0) throw new Error(`no table with the header | ${header.join(' | ')} |`);
  const rows: string[][] = [];
  for (let i = start + 2; i < lines.length && lines[i].trim().startsWith('|'); i++) rows.push(cells(lines[i]));
  return rows;
}

/** Splits on commas outside parentheses and backticks: `a (x, y), b` is `a (x, y)` and `b`. */
export function splitList(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let code = false;
  let current = '';
  for (const ch of text) {
    if (ch === '`') code = !code;
    else if (!code && ch === '(') depth++;
    else if (!code && ch === ')') depth--;
    if (ch === ',' && depth === 0 && !code) {
      parts.push(current.trim());
      current = '';
    } else current += ch;
  }
  parts.push(current.trim());
  return parts;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
export function headingAnchor(heading: string): string {
  return heading.trim().toLowerCase().replace(/`/g, '').replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}
