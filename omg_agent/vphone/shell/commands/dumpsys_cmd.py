"""``dumpsys``: the few services clients parse, in Android 13's layout.

Only the lines clients actually read are produced, but each is byte-for-byte the real shape:
adbutils' ``app_current()`` matches ``mCurrentFocus=Window{...}``, then
``mResumedActivity: ActivityRecord{...}`` and ``ACTIVITY pkg/.Act hash pid=N``;
``rotation()`` looks for ``orientation=N``; ``battery()`` reads ``key: value`` lines. Midscene
reads ``SurfaceOrientation: N`` (input), ``mCurrentOrientation=N`` (display) and
``mInputShown=true`` (input_method, true while the soft keyboard is up: a field took focus and
no BACK hid it). Other services print nothing and succeed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from omg_agent.vphone.shell.commands.ids import app_pid, object_hash, task_id, uid_of
from omg_agent.vphone.shell.context import CommandTable, Ctx
from omg_agent.vphone.system_permissions import dump_lines

if TYPE_CHECKING:
    from omg_agent.vphone.profile import DeviceProfile

ROTATION = 0  # the vphone is always in its natural portrait orientation

BATTERY = """Current Battery Service state:
  AC powered: false
  USB powered: true
  Wireless powered: false
  Dock powered: false
  Max charging current: 500000
  Max charging voltage: 5000000
  Charge counter: 4000000
  status: 2
  health: 2
  present: true
  level: 100
  scale: 100
  voltage: 4300
  temperature: 250
  technology: Li-ion
"""


def _component(package: str, activity: str) -> tuple[str, str]:
    """(short "pkg/.Act", full "pkg/pkg.Act") forms of a component name."""
    full_cls = package + activity if activity.startswith(".") else activity
    short_cls = full_cls[len(package):] if full_cls.startswith(package + ".") else full_cls
    return f"{package}/{short_cls}", f"{package}/{full_cls}"


def _focus(ctx: Ctx) -> tuple[str, str, str]:
    package, activity = ctx.phone.focus()
    short, full = _component(package, activity)
    return package, short, full


def _record(package: str, short: str) -> str:
    return f"ActivityRecord{{{object_hash('ar:' + short)} u0 {short} t{task_id(package)}}}"


def _window(ctx: Ctx, args: list[str]) -> None:
    package, short, full = _focus(ctx)
    window = f"Window{{{object_hash('win:' + full)} u0 {full}}}"
    ime = ctx.phone.ime_current
    ctx.out(
        "WINDOW MANAGER WINDOWS (dumpsys window windows)\n"
        f"  Window #0 {window}:\n"
        f"    mDisplayId=0 rootTaskId={task_id(package)} mSession=Session{{7f3e2a1 "
        f"{app_pid(ctx.phone, package)}:{uid_of(package)}}} "
        "mClient=android.os.BinderProxy@5c1d2e3\n"
        f"    mOwnerUid={uid_of(package)} showForAllUsers=false package={package} appop=NONE\n"
        "    mAttrs={(0,0)(fillxfill) sim={adjust=pan} ty=BASE_APPLICATION fmt=TRANSPARENT}\n"
        "    mHasSurface=true isReadyForDisplay()=true mWindowRemovalAllowed=false\n"
        "\n"
        "  mGlobalConfiguration={1.0 ?mcc?mnc [en_US] ldltr sw411dp w411dp h914dp 440dpi nrml"
        " long port finger -keyb/v/h -nav/h winConfig={ mBounds=Rect(0, 0 - 1080, 2400)}}\n"
        "  mHasPermanentDpad=false\n"
        "  mTopFocusedDisplayId=0\n"
        f"  mInputMethodWindow=Window{{{object_hash('ime:' + ime)} u0 InputMethod}}\n"
        f"  mCurrentFocus={window}\n"
        f"  mFocusedApp={_record(package, short)}\n"
        + _insets(ctx.phone.profile)
    )


def _insets(prof: DeviceProfile) -> str:
    """The display's inset sources, in the form of the profile's Android version: none before
    Android 11 (sdk 30), ``type=ITYPE_…`` on 11–13, ``id=… type=statusBars`` on 14+."""
    if prof.sdk < 30:
        return ""
    w, h = prof.width, prof.height
    bars = (("ITYPE_STATUS_BAR", "statusBars", "0001", f"[0,0][{w},{prof.status_bar_height}]"),
            ("ITYPE_NAVIGATION_BAR", "navigationBars", "0002",
             f"[0,{h - prof.nav_bar_height}][{w},{h}]"))
    lines = ["", "  InsetsStateController", "    InsetsState"]
    for old, new, suffix, frame in bars:
        kind = f"id=3f2a{suffix} type={new}" if prof.sdk >= 34 else f"type={old}"
        lines.append(f"      InsetsSource {kind} frame={frame} visible=true")
    return "\n".join(lines) + "\n"


def _activity(ctx: Ctx, args: list[str]) -> None:
    package, short, _ = _focus(ctx)
    what = args[0] if args else "activities"
    record = _record(package, short)
    if what == "top":
        ctx.out(f"TASK {package} id={task_id(package)} userId=0\n"
                f"  ACTIVITY {short} {object_hash('ar:' + short)} "
                f"pid={app_pid(ctx.phone, package)}\n")
    elif what in ("activities", "a"):
        ctx.out(
            "ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\n"
            "Display #0 (activities from top to bottom):\n"
            f"  * Task{{{object_hash('task:' + package)} #{task_id(package)} type=standard "
            f"A={uid_of(package)}:{package} U=0 visible=true visibleRequested=true "
            "mode=fullscreen translucent=false sz=1}\n"
            f"    topResumedActivity={record}\n"
            f"    mResumedActivity: {record}\n"
            "\n"
            f"  ResumedActivity: {record}\n"
        )


def _display(ctx: Ctx, args: list[str]) -> None:
    p = ctx.phone.profile
    frame = f"Rect(0, 0 - {p.width}, {p.height})"
    ctx.out(
        "DISPLAY MANAGER (dumpsys display)\n"
        "  mOnlyCode=false\n"
        "  mSafeMode=false\n"
        f"  mViewports=[DisplayViewport{{type=INTERNAL, valid=true, isActive=true, displayId=0,"
        f" uniqueId='local:4619827259835644672', physicalPort=0, orientation=0, "
        f"logicalFrame={frame}, physicalFrame={frame}, deviceWidth={p.width}, "
        f"deviceHeight={p.height}}}]\n"
        f"  mDefaultDisplayDeviceInfo: DisplayDeviceInfo{{\"Built-in Screen\": "
        f"uniqueId=\"local:4619827259835644672\", {p.width} x {p.height}, modeId 1, "
        f"density {p.density}, rotation {ROTATION}, type INTERNAL, state ON}}\n"
        "\n"
        "Logical Displays: size=1\n"
        "  Display 0:\n"
        "    mDisplayId=0\n"
        f"    mCurrentOrientation={ROTATION}\n"
    )


def _input(ctx: Ctx, args: list[str]) -> None:
    """The touchscreen's mapper, where clients read the surface orientation."""
    p = ctx.phone.profile
    ctx.out(
        "INPUT MANAGER (dumpsys input)\n\n"
        "Input Manager State:\n  Interactive: true\n\n"
        "Input Reader State (Nums of device: 1):\n"
        "  Device 2: virtual_touchscreen\n"
        "    Generation: 12\n"
        "    IsExternal: false\n"
        "    Sources: TOUCHSCREEN\n"
        "    Touch Input Mapper (mode - DIRECT):\n"
        f"      Viewport INTERNAL: displayId=0, uniqueId=local:4619827259835644672, port=0, "
        f"orientation={ROTATION}, logicalFrame=[0, 0, {p.width}, {p.height}], "
        f"physicalFrame=[0, 0, {p.width}, {p.height}], deviceSize=[{p.width}, {p.height}], "
        "isActive=[1]\n"
        f"      SurfaceWidth: {p.width}px\n"
        f"      SurfaceHeight: {p.height}px\n"
        "      SurfaceLeft: 0\n"
        "      SurfaceTop: 0\n"
        f"      SurfaceOrientation: {ROTATION}\n"
    )


def _input_method(ctx: Ctx, args: list[str]) -> None:
    ime = ctx.phone.ime_current
    shown = "true" if ctx.phone.keyboard_shown() else "false"
    ctx.out("Current Input Method Manager state:\n  Input Methods:\n"
            + "".join(f"    InputMethodInfo{{{i}}}\n" for i in ctx.phone.ime_ids)
            + f"  mCurMethodId={ime}\n  mCurId={ime}\n  mInputShown={shown}\n")


def _battery(ctx: Ctx, args: list[str]) -> None:
    ctx.out(BATTERY)


def _power(ctx: Ctx, args: list[str]) -> None:
    ctx.out("POWER MANAGER (dumpsys power)\n"
            "  mWakefulness=Awake\n"
            "  mHoldingDisplaySuspendBlocker=true\n"
            "  Display Power: state=ON\n")


def _package(ctx: Ctx, args: list[str]) -> None:
    package = next((a for a in args if not a.startswith("-")), None)
    if package is None or package not in ctx.phone.packages():
        return
    ctx.out(
        "Packages:\n"
        f"  Package [{package}] ({object_hash('pkg:' + package)}):\n"
        f"    userId={uid_of(package)}\n"
        "    versionCode=1 minSdk=24 targetSdk=33\n"
        "    versionName=1.0\n"
        "    pkgFlags=[ HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP ]\n"
        "    firstInstallTime=2024-01-01 00:00:00\n"
        "    lastUpdateTime=2024-01-01 00:00:00\n"
    )
    surfaces = getattr(ctx.phone, "surfaces", None)
    if surfaces is not None:
        for line in dump_lines(surfaces.permissions, package):
            ctx.outln(line)


SERVICES: dict[str, Callable[[Ctx, list[str]], None]] = {
    "window": _window, "activity": _activity, "display": _display, "input": _input,
    "input_method": _input_method, "battery": _battery, "power": _power,
    "package": _package,
}


def dumpsys(ctx: Ctx, args: list[str]) -> int:
    if ctx.latency("dumpsys"):
        return 0
    service = SERVICES.get(args[0]) if args else None
    if service is not None:
        service(ctx, args[1:])
    return 0


COMMANDS: CommandTable = {"dumpsys": dumpsys}
