import { execFile } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const pages = ['README.md', ...readdirSync(join(root, 'docs')).filter((n) => n.endsWith('.md')).map((n) => `docs/${n}`)];

/**
 * The lines of a Markdown page outside fenced code blocks (a `# comment` in a shell block is no heading), with inline
 * code spans blanked unless `keepCode` (a link written in code is no link).
 */
function prose(text: string, keepCode = false): string[] {
  let fenced = false;
  return text.split('\n').flatMap((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return [];
    }
    return fenced ? [] : [keepCode ? line : line.replace(/`[^`]*`/g, '``')];
  });
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const line of prose(text, true)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = heading[1].replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count ? `${base}-${count}` : base);
  }
  return found;
}

interface Link {
  page: string;
  target: string;
}

function links(page: string): Link[] {
  const found: Link[] = [];
  for (const line of prose(readFileSync(join(root, page), 'utf8'))) {
    for (const match of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) found.push({ page, target: match[1] });
    for (const match of line.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/g)) found.push({ page, target: match[1] });
  }
  return found;
}

describe('README.md and docs/: links that work in the repository and in the installed package', () => {
  const all = pages.flatMap(links);
  const outside = (l: Link) => /^[a-z][a-z0-9+.-]*:/i.test(l.target) || l.target.startsWith('/');
  const inside = all.filter((l) => !outside(l));

  it('finds the links it checks (the protocol page is linked from the README)', () => {
    expect(pages).to.include('docs/protocol.md');
    expect(all.length).to.be.above(20);
    expect(all.filter((l) => l.page === 'README.md').map((l) => l.target)).to.include('docs/protocol.md');
  });

  it('every link stays inside the repository: no web address, no absolute path', () => {
    expect(all.filter(outside).map((l) => `${l.page}: ${l.target}`)).to.deep.equal([]);
  });

  it('every relative link names a file that exists, and a heading of it where it gives an anchor', () => {
    const broken: string[] = [];
    for (const { page, target } of inside) {
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const file = path ? join(dirname(join(root, page)), decodeURIComponent(path)) : join(root, page);
      if (!existsSync(file)) {
        broken.push(`${page}: ${target} (no such file)`);
        continue;
      }
      if (anchor && file.endsWith('.md') && !anchors(readFileSync(file, 'utf8')).has(decodeURIComponent(anchor))) {
        broken.push(`${page}: ${target} (no heading #${anchor} in ${relative(root, file)})`);
      }
    }
    expect(broken).to.deep.equal([]);
  });

  it('no page sends readers to the contract, a document that is not in the package', () => {
    const mentions = pages.flatMap((page) => prose(readFileSync(join(root, page), 'utf8'))
      .filter((line) => /\b(the|wire) contract\b|\bcontract('s)? part\b|contract\.md/i.test(line))
      .map((line) => `${page}: ${line.trim()}`));
    expect(mentions).to.deep.equal([]);
    expect(all.filter((l) => /contract/i.test(l.target))).to.deep.equal([]);
  });

  it('every file a page links to is in the package npm packs, so the links work inside node_modules', async function () {
    this.timeout(60_000);
    const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, maxBuffer: 16 << 20 });
    const packed = new Set((JSON.parse(stdout) as { files: { path: string }[] }[])[0].files.map((f) => f.path));
    const missing = [...pages, ...inside.map(({ page, target }) => target.split('#')[0] ? relative(root, join(dirname(join(root, page)), target.split('#')[0])) : page)]
      .filter((path) => !packed.has(path));
    expect([...new Set(missing)]).to.deep.equal([]);
  });
});
