/** Reads variables from an environment snapshot, treating blank values as unset (what a blank chart value produces). */
export function envReader(env: Readonly<Record<string, string | undefined>>): (name: string) => string | undefined {
  return (name) => {
    const raw = env[name];
    return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
  };
}
