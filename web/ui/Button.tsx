import type { ButtonHTMLAttributes, ReactNode, Ref } from "react";
import { Spinner } from "./Spinner";

type Props = ButtonHTMLAttributes<HTMLButtonElement> & {
  /** React 19 passes ref as a prop; it reaches the <button> through ...rest (focus return). */
  ref?: Ref<HTMLButtonElement>;
  variant?: "primary" | "secondary" | "ghost" | "danger";
  size?: "sm" | "md" | "icon";
  busy?: boolean;
  children?: ReactNode;
};

export function Button({ variant = "primary", size = "md", busy, className = "", children, disabled, type = "button", ...rest }: Props) {
  return (
    <button
      type={type}
      className={`btn btn-${variant} btn-${size} ${className}`}
      disabled={disabled || busy}
      aria-busy={busy || undefined}
      {...rest}
    >
      {busy && <Spinner size={14} label="" />}
      {children}
    </button>
  );
}
