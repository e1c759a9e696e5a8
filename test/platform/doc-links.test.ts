import { expect } from 'chai';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { projectRoot } from '../support/processes.js';
import { headingAnchor, readDoc, withoutCode } from '../support/markdown.js';

/**
 * Every relative link of the README and docs/*.md resolves in a fresh clone: to a file of the repository (not one
 * the build or npm install makes, not one outside it) and, with `#anchor`, to a heading of that file.
 */

const docs = ['README.md', ...readdirSync(join(projectRoot, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
/** Folders a clone does not have until it is built or installed. */
const generated = ['dist', 'node_modules', 'data', 'test-results'];

/** The anchors GitHub gives a file's headings: their slug, with -1, -2… on repeats. */
function anchorsOf(path: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, heading] of withoutCode(readDoc(path)).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = headingAnchor(heading);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count ? `${slug}-${count}` : slug);
  }
  return anchors;
}

/** Why a link of `doc` does not resolve, or undefined when it does. */
function problem(doc: string, target: string): string | undefined {
  const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
  const path = pathPart === '' ? doc : normalize(join(dirname(doc), decodeURI(pathPart)));
  if (path.startsWith('..') || path === '.') return 'points outside the repository';
  if (generated.includes(path.split(sep)[0])) return `points into ${path.split(sep)[0]}/, which a clone does not have`;
  if (!existsSync(join(projectRoot, path))) return 'no such file';
  if (anchor === undefined) return undefined;
  if (!path.endsWith('.md') || statSync(join(projectRoot, path)).isDirectory()) return 'an anchor into a file that is not Markdown';
  return anchorsOf(path).has(anchor) ? undefined : `${relative('.', path)} has no heading #${anchor}`;
}

describe('docs: relative links resolve in a clone', () => {
  for (const doc of docs) {
    it(`${doc}: every relative link names a file of the repository and an existing heading`, () => {
      const links = [...withoutCode(readDoc(doc)).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]);
      const broken = links
        .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
        .map((target) => ({ target, problem: problem(doc, target) }))
        .filter((link) => link.problem);
      expect(broken).to.deep.equal([]);
    });
  }
});
