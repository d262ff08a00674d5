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

/** A request a documented `curl` command sends, as curl would send it. */
export interface CurlRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
}

/**
 * The `curl` commands of a shell snippet, read strictly as bash and curl read them: quotes, `$VAR` from `env`,
 * line continuations, and the curl options the docs use (anything else throws, naming it), so that a test can send
 * exactly what the documented command sends.
 */
export function curlRequests(script: string, env: Record<string, string> = {}): CurlRequest[] {
  return shellCommands(script, env)
    .filter((words) => words[0] === 'curl')
    .map((words) => curlRequest(words.slice(1)));
}

const CURL_FLAGS = new Set(['-s', '--silent', '-i', '--include', '-G', '--get', '--compressed', '-N', '--no-buffer', '-sN']);
const CURL_IGNORED_WITH_VALUE = new Set(['-o', '--output', '-D', '--dump-header', '-w', '--write-out']);

function curlRequest(args: string[]): CurlRequest {
  const headers: Record<string, string> = {};
  const data: string[] = [];
  const encoded: string[] = [];
  let url: string | undefined;
  let get = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (CURL_FLAGS.has(arg)) get ||= arg === '-G' || arg === '--get';
    else if (CURL_IGNORED_WITH_VALUE.has(arg)) i++;
    else if (arg === '-H' || arg === '--header') {
      const [name, ...value] = args[++i].split(':');
      headers[name.trim()] = value.join(':').trim();
    } else if (arg === '--data' || arg === '-d' || arg === '--data-raw') data.push(args[++i]);
    else if (arg === '--data-urlencode') {
      const [name, ...value] = args[++i].split('=');
      encoded.push(`${name}=${encodeURIComponent(value.join('='))}`);
    } else if (!arg.startsWith('-') && url === undefined) url = arg;
    else throw new Error(`curl option the docs' tests do not read: ${arg}`);
  }
  if (url === undefined) throw new Error('curl without a URL');
  const body = [...data, ...encoded].join('&');
  if (get) return { method: 'GET', url: body ? `${url}${url.includes('?') ? '&' : '?'}${body}` : url, headers, body: undefined };
  return { method: body ? 'POST' : 'GET', url, headers, body: body || undefined };
}

/** Simple commands of a bash snippet, as their words after quote removal; `|`, `;`, `&&`, newlines and `do` separate them. */
function shellCommands(script: string, env: Record<string, string>): string[][] {
  const commands: string[][] = [[]];
  let word: string | undefined;
  const end = () => {
    if (word !== undefined) commands[commands.length - 1].push(word);
    word = undefined;
  };
  const split = () => {
    end();
    if (commands[commands.length - 1].length > 0) commands.push([]);
  };
  const expand = (text: string, at: number): [string, number] => {
    const braced = /^\$\{(\w+)(?::[?-][^}]*)?\}/.exec(text.slice(at)) ?? /^\$(\w+)/.exec(text.slice(at));
    if (!braced) throw new Error(`shell expansion the docs' tests do not read at: ${text.slice(at, at + 20)}`);
    if (!(braced[1] in env)) throw new Error(`$${braced[1]} is not set`);
    return [env[braced[1]], at + braced[0].length];
  };
  for (let i = 0; i < script.length; ) {
    const c = script[i];
    if (c === '\\' && script[i + 1] === '\n') i += 2;
    else if (c === "'") {
      const close = script.indexOf("'", i + 1);
      word = (word ?? '') + script.slice(i + 1, close);
      i = close + 1;
    } else if (c === '"') {
      let text = '';
      i++;
      while (script[i] !== '"') {
        if (script[i] === '\\' && '"\\$`'.includes(script[i + 1])) {
          text += script[i + 1];
          i += 2;
        } else if (script[i] === '$') [text, i] = ((expanded) => [text + expanded[0], expanded[1]])(expand(script, i));
        else text += script[i++];
      }
      word = (word ?? '') + text;
      i++;
    } else if (c === '$') {
      const [expanded, next] = expand(script, i);
      word = (word ?? '') + expanded;
      i = next;
    } else if (c === '#' && word === undefined) {
      while (i < script.length && script[i] !== '\n') i++;
    } else if (c === '\n' || c === ';' || c === '|') {
      split();
      i += c === '|' && script[i + 1] === '|' ? 2 : 1;
    } else if (c === '&' && script[i + 1] === '&') {
      split();
      i += 2;
    } else if (c === ' ' || c === '\t') {
      end();
      if (commands[commands.length - 1].length === 1 && commands[commands.length - 1][0] === 'do') commands[commands.length - 1] = [];
      i++;
    } else {
      word = (word ?? '') + c;
      i++;
    }
  }
  end();
  return commands.filter((words) => words.length > 0);
}
