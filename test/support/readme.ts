import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const README = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');

/** The lines of the README section under the heading named `title` (any level), up to the next heading. */
export function readmeSection(title: string): string[] {
  const lines = README.split('\n');
  const start = lines.findIndex((l) => new RegExp(`^#+ ${title}\\s*$`).test(l));
  if (start < 0) throw new Error(`README has no section "${title}"`);
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
