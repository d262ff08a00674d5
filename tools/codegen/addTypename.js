// Adds `__typename` to every selection set, as Apollo Client's cache needs: a client that sends only an id gets
// back the manifest body's answer, so the body must carry what the client's cache reads. (A named export, so
// graphql-codegen finds `transform` however it loads this file.)
const { addTypenameSelectionDocumentTransform } = require('@graphql-codegen/client-preset');

exports.transform = (options) => addTypenameSelectionDocumentTransform.transform(options);
