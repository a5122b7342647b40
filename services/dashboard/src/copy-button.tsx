// Copies a text (an appKey, a snippet) and says so to sighted and screen-reader users alike.
import { useEffect, useState } from 'react';

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No clipboard API (an insecure origin, or permission refused): the old way, through a selection.
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.className = 'offscreen';
    document.body.append(area);
    area.select();
    const copied = document.execCommand('copy');
    area.remove();
    return copied;
  }
}

export function CopyButton({ text, label }: { text: string; label: string }) {
  const [result, setResult] = useState<'copied' | 'failed' | undefined>();
  useEffect(() => {
    if (!result) return;
    const timer = setTimeout(() => setResult(undefined), 2500);
    return () => clearTimeout(timer);
  }, [result]);
  return (
    <span className="copy">
      <button
        type="button"
        className="button button-small"
        onClick={async () => setResult((await copyText(text)) ? 'copied' : 'failed')}
      >
        {label}
      </button>
      <span className="copy-result" aria-live="polite">
        {result === 'copied' ? 'Copied' : result === 'failed' ? 'Could not copy: select the text instead' : ''}
      </span>
    </span>
  );
}
