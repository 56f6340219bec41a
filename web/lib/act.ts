import { toast, toastError } from "../ui/Toast";

/**
 * Runs a user action with a busy flag and the spec's toasts: the success title when it works,
 * the destructive 'Error' toast with the server's message (or `failure`) when it does not.
 * Resolves to whether it worked.
 */
export async function act(setBusy: (b: boolean) => void, action: () => Promise<unknown>, success: string, failure: string) {
  setBusy(true);
  try {
    await action();
    toast({ title: success });
    return true;
  } catch (err) {
    toastError(err, failure);
    return false;
  } finally {
    setBusy(false);
  }
}
