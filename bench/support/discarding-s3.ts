/**
 * An S3 endpoint that accepts every upload and keeps nothing: the calls the Worker makes (HeadBucket,
 * PutObject, CreateMultipartUpload, UploadPart, CompleteMultipartUpload, AbortMultipartUpload) are
 * answered as S3 answers them once each body has been read to its end. It runs in its own process, as
 * a real object store would, so the bench's process does not share an event loop with it. What it
 * leaves out is exactly what s3rver adds on this machine: writing the parts to disk and, at
 * completion, copying and hashing the whole object again. Comparing the two shows what s3rver costs
 * a job, and what the Worker costs without it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

const SERVER = `
const http = require('node:http');
let uploads = 0;
let bytes = 0;
const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://s3');
  req.on('data', (chunk) => { bytes += chunk.length; });
  req.on('end', () => {
    const q = url.searchParams;
    if (req.method === 'POST' && q.has('uploads')) {
      const id = 'u' + (++uploads);
      res.writeHead(200, { 'Content-Type': 'application/xml' });
      res.end('<?xml version="1.0" encoding="UTF-8"?><InitiateMultipartUploadResult><Bucket>b</Bucket><Key>k</Key><UploadId>' + id + '</UploadId></InitiateMultipartUploadResult>');
    } else if (req.method === 'POST' && q.has('uploadId')) {
      res.writeHead(200, { 'Content-Type': 'application/xml' });
      res.end('<?xml version="1.0" encoding="UTF-8"?><CompleteMultipartUploadResult><Location>x</Location><Bucket>b</Bucket><Key>k</Key><ETag>"done"</ETag></CompleteMultipartUploadResult>');
    } else if (req.method === 'PUT') {
      res.writeHead(200, { ETag: '"' + (q.get('partNumber') || 'object') + '"', 'Content-Length': '0' });
      res.end();
    } else if (req.method === 'DELETE') {
      res.writeHead(204);
      res.end();
    } else {
      res.writeHead(200, { 'Content-Length': '0' });
      res.end();
    }
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'));
process.on('SIGTERM', () => { process.stderr.write('discarding s3: ' + bytes + ' bytes received\\n'); process.exit(0); });
`;

export interface DiscardingS3 {
  readonly endpoint: string;
  close(): Promise<void>;
}

export async function startDiscardingS3(): Promise<DiscardingS3> {
  const child: ChildProcess = spawn(process.execPath, ['-e', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [first] = (await once(child.stdout as NodeJS.ReadableStream, 'data')) as [Buffer];
  const port = Number(first.toString().trim());
  if (!Number.isInteger(port) || port <= 0) throw new Error('the discarding S3 endpoint did not start');
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
