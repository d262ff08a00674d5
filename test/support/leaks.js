// Which of the given secrets appear in a text of log lines. Shared by the TypeScript tests and globalTeardown.js.
//
// A long secret is found anywhere. A short one (the 4-digit STORE_PIN_CODE) would also match inside ids,
// timestamps and durations by chance, so it counts only inside a JSON string and standing alone there: not
// touching a letter or digit on either side, as a header value or a quoted word would stand.
function leakedSecrets(text, secrets) {
  return secrets.filter((secret) => {
    if (secret.length > 4) return text.includes(secret);
    const escaped = secret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return new RegExp(`"[^"\\n]*(?<![0-9A-Za-z])${escaped}(?![0-9A-Za-z])[^"\\n]*"`).test(text);
  });
}

module.exports = { leakedSecrets };
