// The AWS SDK (loaded by the Worker's S3 adapter, unused here) warns on every start under Node 20
// about its future support policy; in the first screen a newcomer sees, that buries the banner. The
// SDK reads this switch when a client is created, so it must be set before the modules load.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export {};
