// The AWS SDK warns on every run under Node 20 about its future support policy; on a command whose
// stderr users read, that paragraph buries the one line that matters. The SDK reads this switch when
// a client is created; set before the other modules load, it also covers any created at import.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export {};
