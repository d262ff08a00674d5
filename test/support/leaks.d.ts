/** Which of `secrets` appear in `text` (log lines); short ones only standing alone inside a JSON string. */
export function leakedSecrets(text: string, secrets: readonly string[]): string[];
