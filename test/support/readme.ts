import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** A Markdown file of the repository, by its path from the root (`README.md`, `docs/operations.md`). */
export function readDoc(path: string): string {
  return readFileSync(join(ROOT, path), 'utf8');
}

export const README = readDoc('README.md');

/** The lines of the section of `file` (the README unless told) under the heading named `title` (any level), up to the next heading. */
export function readmeSection(title: string, file = 'README.md'): string[] {
  const lines = readDoc(file).split('\n');
  const start = lines.findIndex((l) => new RegExp(`^#+ ${title}\\s*$`).test(l));
  if (start < 0) throw new Error(`${file} has no section "${title}"`);
  const end = lines.findIndex((l, i) => i > start && /^#+ /.test(l));
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

/** The body rows of the first Markdown table in `lines`, as cells with surrounding spaces trimmed. */
export function tableRows(lines: string[]): string[][] {
  const rows = lines.filter((l) => l.startsWith('|')).map((l) => l.slice(1, l.endsWith('|') ? -1 : undefined).split('|').map((c) => c.trim()));
  return rows.slice(2); // header and separator
}

/** `code` → code. */
export function unquote(cell: string): string {
  return cell.replace(/^`(.*)`$/, '$1');
}

export interface FencedBlock {
  /** The info string after the opening fence (`graphql`, `sh`, `json`, …). */
  lang: string;
  text: string;
  /** 1-based line of the opening fence, to name the block in a failure. */
  line: number;
}

/** Every fenced code block of a Markdown text (the README unless told), in order. */
export function fencedBlocks(markdown: string = README): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  let open: { lang: string; line: number; lines: string[] } | undefined;
  markdown.split('\n').forEach((line, i) => {
    const fence = /^```(\S*)\s*$/.exec(line);
    if (!open && fence) open = { lang: fence[1], line: i + 1, lines: [] };
    else if (open && fence && fence[1] === '') {
      blocks.push({ lang: open.lang, text: open.lines.join('\n'), line: open.line });
      open = undefined;
    } else open?.lines.push(line);
  });
  return blocks;
}
