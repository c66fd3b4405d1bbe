export {};

// The AWS SDK (loaded by the Worker's S3 adapter, unused here) warns on every start under Node 20
// about its future support policy; in the first screen a newcomer sees, that buries the banner.
const emitWarning = process.emitWarning.bind(process);
process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
  const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: string } | undefined)?.type;
  if (type === 'NodeVersionSupportWarning' || (warning instanceof Error && warning.name === 'NodeVersionSupportWarning')) return;
  (emitWarning as (...args: unknown[]) => void)(warning, ...rest);
});

