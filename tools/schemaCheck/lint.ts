import { Linter } from 'eslint';
import { join } from 'node:path';
import { ROOT, type SourceFile } from './sources';

/** graphql-eslint's schema rules, configured in eslint.config.js (the one place to change them). */
export function lintSchema(files: readonly SourceFile[]): string[] {
  // eslint.config.js is CommonJS so that this check, the eslint CLI and jest all load the same file.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const configured = require(join(ROOT, 'eslint.config.js')) as Linter.Config[];
  // The rules that need the whole schema get the one being checked (the files given), not the one on disk.
  const schemaSdl = files.map((f) => f.text).join('\n');
  const config = configured.map((c) => (c.languageOptions?.parserOptions ? { ...c, languageOptions: { ...c.languageOptions, parserOptions: { schemaSdl } } } : c));
  const linter = new Linter({ configType: 'flat', cwd: ROOT });
  const findings: string[] = [];
  for (const file of files) {
    for (const m of linter.verify(file.text, config, { filename: join(ROOT, file.path) })) {
      findings.push(`${file.path}:${m.line}:${m.column} ${m.message} (${m.ruleId ?? 'parse'})`);
    }
  }
  return findings;
}
