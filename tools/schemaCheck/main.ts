import { checkSchema } from './check';
import { lintSchema } from './lint';
import { repositorySources } from './sources';

/** `npm run schema:check`: the schema against its published snapshot and its clients' operations, and its lint. */
async function main(): Promise<void> {
  const sources = repositorySources();
  const report = await checkSchema(sources);
  const lint = lintSchema(sources.schemaFiles);
  const out = (line: string) => process.stdout.write(`${line}\n`);
  for (const note of report.notes) out(`note: ${note}`);
  for (const error of report.errors) out(`✗ ${error}`);
  for (const finding of lint) out(`✗ lint: ${finding}`);
  const failures = report.errors.length + lint.length;
  out(
    failures === 0
      ? `schema check: passed (${sources.operationFiles.length} operation files, ${sources.manifests.length} manifest(s), ${sources.schemaFiles.length} schema files linted)`
      : `schema check: ${failures} problem(s)`,
  );
  process.exitCode = failures === 0 ? 0 : 1;
}

main().catch((err: unknown) => {
  process.stderr.write(`schema check failed to run: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
