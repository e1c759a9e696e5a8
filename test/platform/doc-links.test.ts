import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { promisify } from 'node:util';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { projectRoot } from '../support/processes.js';
import { makeTempDir, removeTempDirs } from '../support/temp.js';
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

/** The targets of a page's Markdown links outside code (fenced blocks, and inline spans: `[a](b)` in code is no link). */
const linksOf = (doc: string) =>
  [...withoutCode(readDoc(doc)).replace(/`[^`\n]*`/g, '``').matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]);
const isOutside = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('/');

describe('docs: relative links resolve in a clone', () => {
  for (const doc of docs) {
    it(`${doc}: every relative link names a file of the repository and an existing heading`, () => {
      const broken = linksOf(doc)
        .filter((target) => !isOutside(target))
        .map((target) => ({ target, problem: problem(doc, target) }))
        .filter((link) => link.problem);
      expect(broken).to.deep.equal([]);
    });
  }
});

describe('docs: readers stay inside the package', () => {
  it('README.md links the protocol page, written for client developers', () => {
    expect(docs).to.include('docs/protocol.md');
    expect(linksOf('README.md')).to.include('docs/protocol.md');
  });

  it('no link leaves the repository (no web address, no absolute path): the pages are read inside node_modules too', () => {
    const outside = docs.flatMap((doc) => linksOf(doc).filter(isOutside).map((target) => `${doc}: ${target}`));
    expect(outside).to.deep.equal([]);
  });

  it('no page sends readers to the contract, a document that is not in the repository', () => {
    const mentions = docs.flatMap((doc) => withoutCode(readDoc(doc)).split('\n')
      .filter((line) => /\b(the|wire) contract\b|\bcontract('s)? part\b|contract\.md/i.test(line))
      .map((line) => `${doc}: ${line.trim()}`));
    expect(mentions).to.deep.equal([]);
  });

  after(removeTempDirs);

  it('the package as published (npm run pack) holds every page and every file they link to', async function () {
    this.timeout(60_000);
    const { stdout } = await promisify(execFile)(process.execPath, [join(projectRoot, '.ci', 'pack.mjs'), '--stage', join(makeTempDir('restlayer-docs-pack-'), 'package'), '--dry-run'], { cwd: projectRoot, maxBuffer: 16 << 20 });
    const packed = new Set((JSON.parse(stdout) as { files: { path: string }[] }[])[0].files.map((f) => f.path));
    const linked = docs.flatMap((doc) => linksOf(doc).filter((t) => !isOutside(t) && !t.startsWith('#'))
      .map((target) => normalize(join(dirname(doc), decodeURI(target.split('#')[0]))).split(sep).join('/')));
    expect([...new Set([...docs, ...linked])].filter((path) => !packed.has(path))).to.deep.equal([]);
  });
});
