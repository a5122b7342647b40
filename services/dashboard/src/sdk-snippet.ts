// The snippets an app's screen offers, in one place: for web apps the collector's own browser SDK
// (packages/sdk-browser, served by the collector at /sdk/collector.min.js, as the README's "Browser SDK" section gives
// it); for every other type the Sentry SDK of that platform, pointed at the app's DSN (README, "Use a Sentry SDK").
import type { AppType } from './api';

export function sdkSnippet({ appKey, endpoint }: { appKey: string; endpoint: string }): string {
  return `<script src="${endpoint}/sdk/collector.min.js" crossorigin="anonymous"></script>
<script>
  Collector.init({
    appKey: '${appKey}',
    endpoint: '${endpoint}',
  });
</script>`;
}

export interface SentrySetup {
  /** What to install, when the platform has a one-line install. */
  install?: string;
  /** Where the code goes. */
  where: string;
  code: string;
}

/** A JavaScript SDK: installed from npm, started by `Sentry.init` with the DSN. */
function npmSetup({
  dsn,
  where,
  npmPackage,
  module = npmPackage,
}: {
  dsn: string;
  where: string;
  npmPackage: string;
  /** What the code imports, when not the package itself. */
  module?: string;
}): SentrySetup {
  return {
    install: `npm install ${npmPackage}`,
    where,
    code: `import * as Sentry from '${module}';\n\nSentry.init({ dsn: '${dsn}' });`,
  };
}

/** Sentry's own SDK for the app's platform, configured with nothing but the DSN. */
export function sentrySetup({ type, dsn }: { type: AppType; dsn: string }): SentrySetup {
  switch (type) {
    case 'web':
      return npmSetup({ dsn, where: 'Before your own code runs:', npmPackage: '@sentry/browser' });
    case 'node':
      return npmSetup({ dsn, where: 'First thing in your entry point:', npmPackage: '@sentry/node' });
    case 'react-native':
      return npmSetup({ dsn, where: 'In App.js, before the app is registered:', npmPackage: '@sentry/react-native' });
    case 'electron':
      return npmSetup({
        dsn,
        where: 'In the main process and in each renderer:',
        npmPackage: '@sentry/electron',
        module: '@sentry/electron/main',
      });
    case 'flutter':
      return {
        install: 'flutter pub add sentry_flutter',
        where: 'In main.dart:',
        code: `import 'package:sentry_flutter/sentry_flutter.dart';\n\nFuture<void> main() async {\n  await SentryFlutter.init(\n    (options) => options.dsn = '${dsn}',\n    appRunner: () => runApp(const MyApp()),\n  );\n}`,
      };
    case 'ios':
      return {
        install: 'Add https://github.com/getsentry/sentry-cocoa with Swift Package Manager',
        where: 'In your App or AppDelegate initialiser:',
        code: `import Sentry\n\nSentrySDK.start { options in\n    options.dsn = "${dsn}"\n}`,
      };
    case 'android':
      return {
        install: "implementation 'io.sentry:sentry-android:7.+' in app/build.gradle",
        where: 'In AndroidManifest.xml, inside <application>:',
        code: `<meta-data android:name="io.sentry.dsn" android:value="${dsn}" />`,
      };
    case 'other':
      return {
        where: 'Any Sentry SDK takes the DSN; in Python, for one:',
        install: 'pip install sentry-sdk',
        code: `import sentry_sdk\n\nsentry_sdk.init(dsn="${dsn}")`,
      };
  }
}

/** One test event from a shell, to see the pipeline work before any SDK is in place. */
export function curlSnippet({ appKey, endpoint }: { appKey: string; endpoint: string }): string {
  return `curl -s ${endpoint}/api/events/batch -H 'content-type: application/json' \\
  -d '{"appKey":"${appKey}","events":[{"eventId":"evt_'$(date +%s)'","type":"error","timestamp":'$(date +%s000)',"errorType":"Error","message":"Hello from curl"}]}'`;
}
