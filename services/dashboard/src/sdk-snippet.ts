// The snippet an app's screen offers for the browser SDK (packages/sdk-browser), in one place so it follows that
// SDK's names (file, global, options) as its README section "Browser SDK" gives them.
export function sdkSnippet({ appKey, endpoint }: { appKey: string; endpoint: string }): string {
  return `<!-- collector.min.js is the browser SDK's build (packages/sdk-browser/dist); serve it with your pages -->
<script src="/collector.min.js"></script>
<script>
  Collector.init({
    appKey: '${appKey}',
    endpoint: '${endpoint}',
  });
</script>`;
}

/** One test event from a shell, to see the pipeline work before any SDK is in place. */
export function curlSnippet({ appKey, endpoint }: { appKey: string; endpoint: string }): string {
  return `curl -s ${endpoint}/api/events/batch -H 'content-type: application/json' \\
  -d '{"appKey":"${appKey}","events":[{"eventId":"evt_'$(date +%s)'","type":"error","timestamp":'$(date +%s000)',"errorType":"Error","message":"Hello from curl"}]}'`;
}
