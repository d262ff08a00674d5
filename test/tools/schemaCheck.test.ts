import { checkSchema, changelogVersions, type SchemaCheckInput } from '../../tools/schemaCheck/check';
import { lintSchema } from '../../tools/schemaCheck/lint';
import { readSnapshot, renderSnapshot } from '../../tools/schemaCheck/snapshot';
import { repositorySources, type SourceFile } from '../../tools/schemaCheck/sources';

/** The repository as it is, with one schema file's text changed by `edit`. */
function withSchemaEdit(file: string, edit: (text: string) => string): SchemaCheckInput {
  const sources = repositorySources();
  const schemaFiles = sources.schemaFiles.map((f): SourceFile => (f.path === `schema/${file}` ? { ...f, text: edit(f.text) } : f));
  expect(schemaFiles).not.toEqual(sources.schemaFiles);
  return { ...sources, schemaFiles };
}

describe('checkSchema', () => {
  it('passes on the repository as committed', async () => {
    const report = await checkSchema(repositorySources());
    expect(report.errors).toEqual([]);
  });

  it('fails when a field an operation uses is removed, naming the change, the operations and the files', async () => {
    const input = withSchemaEdit('reservation.graphql', (t) => t.replace('  "How many guests are expected."\n  guestCount: Int\n', ''));
    const { errors } = await checkSchema(input);
    const breaking = errors.find((e) => e.startsWith('breaking change'));
    expect(breaking).toContain("Field 'guestCount' was removed from object type 'Reservation' [Reservation.guestCount, schema/reservation.graphql]");
    expect(breaking).toMatch(/used by: .*Day \(operations\/readme\.graphql\)/);
    expect(breaking).toContain('DayView (operations/dayView.graphql)');
    expect(breaking).toContain('(operations/generated/persisted-query-manifest.json)');
    expect(errors).toContainEqual(
      expect.stringMatching(/^operation DayView \(operations\/dayView\.graphql\) no longer validates against the schema: Cannot query field "guestCount" on type "Reservation"\. \(operations\/fragments\/reservationSummary\.graphql:\d+:\d+\)/),
    );
    expect(errors).toContainEqual(expect.stringMatching(/^operation Book \(operations\/generated\/persisted-query-manifest\.json\) no longer validates/));
  });

  it('fails when a field an operation uses is renamed', async () => {
    const input = withSchemaEdit('employee.graphql', (t) => t.replace('registrationNo: String', 'registrationNumber: String'));
    const { errors } = await checkSchema(input);
    expect(errors).toContainEqual(expect.stringMatching(/^operation StaffList \(operations\/staffList\.graphql\) no longer validates against the schema: Cannot query field "registrationNo" on type "Employee"/));
    expect(errors.find((e) => e.startsWith('breaking change'))).toMatch(/Employee\.registrationNo.*\n    used by: StaffList \(operations\/staffList\.graphql\), StaffList \(operations\/generated/);
  });

  it('fails when an operation no longer validates even once the change is published with its changelog line', async () => {
    // A new required argument of a field the staff list reads, published on purpose: inspector has nothing left to
    // report against the new snapshot, but the operations still break.
    const input = withSchemaEdit('employee.graphql', (t) => t.replace('  phoneNumber: String\n', '  phoneNumber(format: String!): String\n'));
    const { text, version } = renderSnapshot(input.schemaFiles.map((f) => f.text).join('\n'));
    const changelog = input.changelog.replace(/(#+ Schema changelog\n)/, `$1\n- \`${version}\` 2026-11-23: Employee.phoneNumber takes a format.\n`);
    const { errors } = await checkSchema({ ...input, snapshot: text, changelog });
    expect(errors.filter((e) => e.startsWith('breaking change'))).toEqual([]);
    expect(errors).toContainEqual(expect.stringMatching(/^operation StaffList \(operations\/staffList\.graphql\) no longer validates.*argument "format"/));
    expect(errors).toContainEqual(expect.stringMatching(/^operation StaffList \(operations\/generated\/persisted-query-manifest\.json\) no longer validates/));
  });

  it('holds the schema to the manifest a shipped release pinned, for fields no current operation uses', async () => {
    const body = 'query StaffProperty { employees { nodes { id propertyId } } }';
    const release: SourceFile = {
      path: 'operations/releases/ios-4.2.0.json',
      text: JSON.stringify({ format: 'apollo-persisted-query-manifest', version: 1, operations: [{ id: 'x', name: 'StaffProperty', type: 'query', body }] }),
    };
    const input = withSchemaEdit('employee.graphql', (t) => t.replace('  "UUID of the property (venue) the employee belongs to."\n  propertyId: ID\n', ''));
    expect((await checkSchema(input)).errors.join('\n')).toContain('used by no operation in operations/ or the manifests');
    const { errors } = await checkSchema({ ...input, manifests: [...input.manifests, release] });
    expect(errors).toContainEqual(expect.stringMatching(/^operation StaffProperty \(operations\/releases\/ios-4\.2\.0\.json\) no longer validates/));
    expect(errors.find((e) => e.startsWith('breaking change'))).toContain('used by: StaffProperty (operations/releases/ios-4.2.0.json)');
  });

  it('accepts a breaking change once the snapshot is regenerated with a changelog line', async () => {
    const input = withSchemaEdit('employee.graphql', (t) => t.replace('  "Staff registration number."\n  registrationNo: String\n', ''));
    const { text, version } = renderSnapshot(input.schemaFiles.map((f) => f.text).join('\n'));
    const withoutLine = await checkSchema({ ...input, operationFiles: [], manifests: [], snapshot: text });
    expect(withoutLine.errors).toEqual([expect.stringContaining(`the published snapshot (version ${version}) has no line in CHANGELOG.md's "Schema changelog"`)]);
    const changelog = input.changelog.replace(/(#+ Schema changelog\n)/, `$1\n- \`${version}\` 2026-11-23: Employee.registrationNo removed.\n`);
    expect(changelog).not.toBe(input.changelog);
    expect((await checkSchema({ ...input, operationFiles: [], manifests: [], snapshot: text, changelog })).errors).toEqual([]);
  });

  it('notices a snapshot edited by hand', async () => {
    const sources = repositorySources();
    const edited = sources.snapshot.replace('registrationNo: String', 'registrationNumber: String');
    expect(readSnapshot(edited).edited).toBe(true);
    expect((await checkSchema({ ...sources, snapshot: edited })).errors).toContainEqual(expect.stringContaining('does not match its recorded version'));
  });

  it('reads the versions of the Schema changelog section', () => {
    expect(changelogVersions('# X\n- `0123456789ab` no\n## Schema changelog\n- `aaaaaaaaaaaa` 2026: yes\n## Next\n- `bbbbbbbbbbbb`')).toEqual(new Set(['aaaaaaaaaaaa']));
  });
});

describe('lintSchema', () => {
  it('passes on the committed schema and names the file, line and rule of a finding', () => {
    const sources = repositorySources();
    expect(lintSchema(sources.schemaFiles)).toEqual([]);
    const edited = sources.schemaFiles.map((f) =>
      f.path === 'schema/employee.graphql' ? { ...f, text: f.text.replace('  "Staff registration number."\n', '').replace('registrationNo:', 'registration_no:') } : f,
    );
    const findings = lintSchema(edited);
    expect(findings).toContainEqual(expect.stringMatching(/^schema\/employee\.graphql:\d+:\d+ .*registration_no.*\(@graphql-eslint\/naming-convention\)$/));
    expect(findings).toContainEqual(expect.stringMatching(/^schema\/employee\.graphql:\d+:\d+ .*\(@graphql-eslint\/require-description\)$/));
  });

  it('accepts the cost directives (@cost, @listSize) where the schema defines and uses them', () => {
    const { schemaFiles } = repositorySources();
    expect(schemaFiles.some((f) => /^directive @cost\b/m.test(f.text))).toBe(true);
    expect(schemaFiles.some((f) => /@listSize\(/.test(f.text))).toBe(true);
    expect(lintSchema(schemaFiles)).toEqual([]);
    // One more use of each on a field that has none is still clean.
    const files = schemaFiles.map((f) => (f.path === 'schema/employee.graphql' ? { ...f, text: f.text.replace(/^( {2}nodes: [^\n@]+)$/m, '$1 @listSize(assumedSize: 50) @cost(weight: "2")') } : f));
    expect(files).not.toEqual(schemaFiles);
    expect(lintSchema(files)).toEqual([]);
  });
});
