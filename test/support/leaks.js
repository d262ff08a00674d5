// Which of the given secrets appear in a text of log lines. Shared by the TypeScript tests and globalTeardown.js.
//
// A long secret is found anywhere. A short one (the 4-digit STORE_PIN_CODE) would also match inside ids,
// timestamps and durations by chance (a UUID's third group is "4" and three hex digits: "-4821-" comes up in about
// one request id in 4096), so it counts only inside a string value of a JSON line, standing alone there: not
// touching a letter, a digit or a dash on either side, as a header value or a quoted word would stand.
function leakedSecrets(text, secrets) {
  const lines = text.split('\n').filter(Boolean);
  return secrets.filter((secret) => {
    if (secret.length > 4) return text.includes(secret);
    const escaped = secret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const alone = new RegExp(`(?<![0-9A-Za-z-])${escaped}(?![0-9A-Za-z-])`);
    return lines.some((line) => stringsOf(line).some((value) => alone.test(value)));
  });
}

/** The string values of a JSON line, however deep; a line that is not JSON is one string. */
function stringsOf(line) {
  let parsed;
  try {
    parsed = JSON.parse(line);
  } catch {
    return [line];
  }
  const out = [];
  const walk = (value) => {
    if (typeof value === 'string') out.push(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value !== null && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(parsed);
  return out;
}

module.exports = { leakedSecrets };
