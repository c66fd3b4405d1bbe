// The Worker's stored-result format for the CLI's specs; the platform owns it with the decryptor.
export { aMasterKey, storedResult } from '@fetcher/platform/testing';
