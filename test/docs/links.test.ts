import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '../..');

/** The Markdown files a reader of the repository follows links through. */
function documents(): string[] {
  const found = ['README.md', 'CONTRIBUTING.md', 'bench/README.md', 'packages/embedded-mongo/README.md'].filter((file) => existsSync(path.join(ROOT, file)));
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(ROOT, dir))) {
      const relative = path.join(dir, entry);
      if (statSync(path.join(ROOT, relative)).isDirectory()) walk(relative);
      else if (entry.endsWith('.md')) found.push(relative);
    }
  };
  walk('docs');
  return found;
}

/** The text outside fenced code blocks and inline code, where links are links. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  const withoutCode = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const [, text] of withoutCode.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = text
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

describe('links between the documents', () => {
  const files = documents();

  it('finds the front page and the chapters', () => {
    expect(files).toEqual(expect.arrayContaining(['README.md', 'docs/README.md', 'docs/contract/broker-interface-v0.md']));
  });

  it.each(files)('every relative link and anchor in %s resolves', (file) => {
    const text = readFileSync(path.join(ROOT, file), 'utf8');
    const broken: string[] = [];
    for (const [, target] of prose(text).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const [linkPath, anchor] = target.split('#') as [string, string | undefined];
      const resolved = linkPath === '' ? path.join(ROOT, file) : path.join(ROOT, path.dirname(file), decodeURIComponent(linkPath));
      if (!resolved.startsWith(ROOT + path.sep) && resolved !== ROOT) {
        broken.push(`${target}: outside the repository`);
        continue;
      }
      if (!existsSync(resolved)) {
        broken.push(`${target}: no such file`);
        continue;
      }
      if (anchor !== undefined && resolved.endsWith('.md') && !anchors(readFileSync(resolved, 'utf8')).has(anchor)) {
        broken.push(`${target}: no heading with that anchor`);
      }
    }
    expect(broken).toEqual([]);
  });
});
