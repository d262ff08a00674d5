/** The contract names fields as the upstreams name them, in camelCase: `guest_count` is `guestCount`. */

/** `guestCount` → `guest_count`. */
export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** `guest_count` → `guestCount`: the GraphQL name of an upstream key. */
export function camelCase(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}
