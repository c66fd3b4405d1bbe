import { useState } from 'preact/hooks';

/** A read-only text with a copy button (the clipboard needs a secure context; the text stays selectable). */
export function CopyText({ label, text }: { label: string; text: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="copy">
      <code aria-label={label}>{text}</code>
      <button
        type="button"
        onClick={() =>
          void navigator.clipboard?.writeText(text).then(
            () => setCopied(true),
            () => setCopied(false),
          )
        }
      >
        Copy
      </button>
      <span role="status">{copied ? 'Copied' : ''}</span>
    </div>
  );
}
