// @ts-check
/**
 * The schema's lint rules (graphql-eslint's schema rules), set to our conventions. `npm run schema:check` runs
 * them (tools/schemaCheck/lint.ts); `npx eslint schema` shows the same findings. This file is the one place to
 * change them.
 */
const graphql = require('@graphql-eslint/eslint-plugin');

const recommended = graphql.configs['flat/schema-recommended'].rules ?? {};

module.exports = [
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
