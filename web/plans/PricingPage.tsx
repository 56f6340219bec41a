import { useState } from "react";
import { useLocation } from "wouter";
import { mutate } from "swr";
import { PREMIUM_PRICE } from "../../src/plans/schema";
import { api } from "../lib/api";
import { USER_KEY, useUser } from "../lib/auth";
import { useConfig } from "../lib/config";
import { Button } from "../ui/Button";
import { toast, toastError } from "../ui/Toast";
import { PublicShell } from "../pages/PublicShell";
import "./plans.css";
import { usePageTitle } from "../shell/usePageTitle";

/** /pricing: the Free and Premium cards with the Upgrade button (spec §2, §4 'Subscription'). */
export function PricingPage() {
  usePageTitle("Pricing");
  const { user } = useUser();
  const config = useConfig();
  const [, navigate] = useLocation();
  const [processing, setProcessing] = useState(false);
  const premium = user?.subscriptionType === "premium";
  const limit = config?.freeTopicLimit ?? 5;

  const upgrade = async () => {
    if (!user) {
      navigate(`/auth?next=${encodeURIComponent("/pricing")}`);
      return;
    }
    setProcessing(true);
    try {
      await api("/api/subscription/upgrade", { method: "POST" });
      await mutate(USER_KEY);
      toast({ title: "Success!", description: "Your subscription has been upgraded to Premium." });
    } catch (e) {
      toastError(e, "Failed to upgrade subscription");
    } finally {
      setProcessing(false);
    }
  };

  const ends = premium && user?.subscriptionExpiresAt ? new Date(user.subscriptionExpiresAt).toLocaleDateString("en-US", { month: "short", day: "numeric", year: "numeric" }) : null;

  return (
    <PublicShell>
      <h1 className="pricing-title">Pricing</h1>
      <div className="pricing-grid">
        <section className="card plan-card" aria-labelledby="plan-free">
          <h2 id="plan-free">Free {user && !premium && <span className="badge">Current plan</span>}</h2>
          <p className="price"><strong>$0</strong></p>
          <ul>
            <li>Up to {limit} custom topics</li>
            <li>Default topic organisation</li>
            <li>Basic topic management</li>
          </ul>
        </section>
        <section className="card plan-card plan-premium" aria-labelledby="plan-premium">
          <h2 id="plan-premium">Premium {premium && <span className="badge badge-primary">Current plan</span>}</h2>
          <p className="price"><strong>{PREMIUM_PRICE}</strong> per month</p>
          <ul>
            <li>Unlimited message topics</li>
            <li>Advanced topic organisation</li>
            <li>Custom emoji support</li>
            <li>Priority support</li>
          </ul>
          {premium ? (
            // Spec §4 disables Upgrade for a premium user; a greyed button there read as broken,
            // so the card says what the user has instead (docs/decisions.md).
            <p className="plan-current">
              <span aria-hidden="true">✓ </span>
              {ends ? `You're on Premium, until ${ends}.` : "You're on Premium."}
            </p>
          ) : (
            <Button onClick={upgrade} disabled={processing}>{processing ? "Processing..." : "Upgrade"}</Button>
          )}
        </section>
      </div>
    </PublicShell>
  );
}
