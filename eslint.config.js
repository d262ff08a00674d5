// @ts-check
/**
 * The lint rules, set to our conventions; this file is the one place to change them.
 * - TypeScript (src/, test/, bench/, tools/): typescript-eslint's recommended type-checked rules; `npm run lint`
 *   runs them, and `npm test` runs that. A rule is turned off only with a line saying why.
 * - The schema: graphql-eslint's schema rules. `npm run schema:check` runs them (tools/schemaCheck/lint.ts);
 *   `npx eslint schema` shows the same findings.
 */
const graphql = require('@graphql-eslint/eslint-plugin');
const tseslint = require('typescript-eslint');

const recommended = graphql.configs['flat/schema-recommended'].rules ?? {};

module.exports = [
  { ignores: ['dist/**', 'node_modules/**', 'src/generated/**', 'operations/generated/**'] },
  ...tseslint.config({
    files: ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'tools/**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: __dirname } },
    rules: {
      // Apollo's plugin hooks, DataLoader batch functions and Apollo's gateway interface are typed to return promises:
      // an `async` function without `await` is how they do, and a missing await is caught by no-floating-promises.
      '@typescript-eslint/require-await': 'off',
      // A leading underscore names what a destructuring leaves out on purpose (`const { pin: _pin, ...rest }`).
      '@typescript-eslint/no-unused-vars': ['error', { varsIgnorePattern: '^_', argsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true }],
      // Loaded lazily where a process may not need them (tracing off, no REDIS_URL, no CLIENTS_FILE); each is commented.
      '@typescript-eslint/no-require-imports': ['error', { allow: ['^@opentelemetry/', '^ioredis$', '^\\./(clientsFile|budgets)$'] }],
    },
  }),
  {
    // Tests read the JSON of real HTTP answers (typed `any` by JSON.parse and fetch) and hold its shape to account
    // with `expect`; a typed decoder before every assertion would repeat what the assertion already checks.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Likewise the helpers' types of those answers (`json: any`): each test checks the fields it reads.
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: ['schema/*.graphql'],
    languageOptions: { parser: graphql.parser, parserOptions: { graphQLConfig: { schema: 'schema/*.graphql' } } },
    plugins: { '@graphql-eslint': graphql },
    rules: {
      ...recommended,
      // Every type, field, argument and input field says what it means (the schema is the API's documentation).
      // Directive definitions and their arguments are exempt: the cost directives (@cost, @listSize) come from their
      // spec as they are.
      '@graphql-eslint/require-description': [
        'error',
        {
          types: true,
          rootField: true,
          FieldDefinition: true,
          InputValueDefinition: true,
          EnumValueDefinition: true,
          DirectiveDefinition: false,
          ignoredSelectors: ['DirectiveDefinition > InputValueDefinition'],
        },
      ],
      // Short descriptions are "…", long ones """…""": both styles are ours.
      '@graphql-eslint/description-style': 'off',
      // Field names are the upstream names camelCased (the contract), so `Customer.customerDiscountId` stays.
      '@graphql-eslint/no-typename-prefix': 'off',
      // Value types (totals, payloads, the off day and payment request echoes) have no id of their own.
      '@graphql-eslint/strict-id-in-types': 'off',
      // One input type per mutation, named after it, and an object payload (Shopify's design tutorial #21, #22).
      '@graphql-eslint/input-name': ['error', { checkInputType: true, caseSensitiveInputType: false }],
      '@graphql-eslint/no-scalar-result-type-on-mutation': 'error',
      // Deprecations say when, so a field can be removed once no shipped client uses it.
      '@graphql-eslint/require-deprecation-date': 'error',
    },
  },
];
