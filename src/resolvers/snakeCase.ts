/**
 * `guestCount` → `guest_count`: the upstream key of a field that has no resolver of its own, since the contract
 * names fields as the upstream names in camelCase (the executable schema gives such fields a resolver reading it).
 */
export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
