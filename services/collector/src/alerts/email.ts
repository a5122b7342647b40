// E-mail alerts through the SMTP server of SMTP_URL (smtp:// or smtps://, with credentials in the URL).
import nodemailer from 'nodemailer';

export interface Mailer {
  send(mail: { to: string; subject: string; text: string; html: string }): Promise<void>;
  close(): void;
}

export function createMailer(smtpUrl: string, from: string): Mailer {
  // No pool: alerts are few, and a fresh connection per message makes a failed one independent of the next.
  // Timeouts within the 10 s a webhook gets.
  const transport = nodemailer.createTransport({
    url: smtpUrl,
    connectionTimeout: 10_000,
    greetingTimeout: 5_000,
    socketTimeout: 10_000,
  });
  return {
    send: async (mail) => {
      await transport.sendMail({ from, ...mail });
    },
    close: () => transport.close(),
  };
}
