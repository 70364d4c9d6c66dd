"""Draw a view tree into pixels with Pillow.

The renderer only reads views; it never decides layout. Scrollable containers are drawn on
their own layer so children are clipped exactly at the viewport edge, matching the bounds
the XML dump reports.
"""

from __future__ import annotations

from PIL import Image, ImageDraw

from omg_agent.vphone.ui import fonts
from omg_agent.vphone.ui.view import Bounds, View

CARET = (33, 99, 235)


class Renderer:
    def __init__(self, caret_visible: bool = True) -> None:
        self.caret_visible = caret_visible

    def render(self, root: View, size: tuple[int, int]) -> Image.Image:
        img = Image.new("RGBA", size, (255, 255, 255, 255))
        self.draw(img, root)
        return img

    def draw(self, img: Image.Image, view: View) -> None:
        """Draw ``view`` (bounds in screen pixels) over ``img`` in place."""
        self._draw_view(img, view, (0, 0))

    def _draw_view(self, img: Image.Image, view: View, origin: tuple[int, int]) -> None:
        ox, oy = origin
        left, top, right, bottom = view.bounds
        box = (left - ox, top - oy, right - ox, bottom - oy)
        self._draw_self(img, view, box)
        if view.clips and view.children:
            w, h = right - left, bottom - top
            if w <= 0 or h <= 0:
                return
            layer = img.crop((box[0], box[1], box[2], box[3]))
            for child in view.children:
                self._draw_view(layer, child, (left, top))
            img.paste(layer, (box[0], box[1]))
            return
        for child in view.children:
            self._draw_view(img, child, origin)

    # -- one view ------------------------------------------------------------------------
    def _draw_self(self, img: Image.Image, view: View, box: Bounds) -> None:
        st = view.style
        bg = st.get("bg")
        if view.kind == "scrim" and bg is not None:
            overlay = Image.new("RGBA", img.size, bg)
            img.alpha_composite(overlay)
            return
        draw = ImageDraw.Draw(img)
        if bg is not None and view.kind not in ("glyph", "launcher_icon", "icon"):
            radius = st.get("radius", 0)
            if radius:
                draw.rounded_rectangle(box, radius=radius, fill=_dim(bg, view.enabled))
            else:
                draw.rectangle(box, fill=bg)
        if st.get("divider"):
            draw.line((box[0], box[3] - 1, box[2], box[3] - 1), fill=st["divider"], width=2)
        match view.kind:
            case "text" | "button" | "flat_button":
                align = "center" if view.kind != "text" else st.get("align", "left")
                self._text(draw, box, view.text, st.get("size", 40), st.get("fg", (0, 0, 0)),
                           st.get("bold", view.kind != "text"), align)
            case "edit":
                self._edit(img, view, box)
            case "switch":
                self._switch(draw, box, view.checked)
            case "checkbox":  # the box at the left, the label beside it
                side = min(box[3] - box[1], 84) * 2 // 3
                y0 = (box[1] + box[3] - side) // 2
                square = (box[0], y0, box[0] + side, y0 + side)
                draw.rounded_rectangle(square, radius=6, outline=CARET, width=4,
                                       fill=CARET if view.checked else None)
                if view.checked:
                    draw.line((square[0] + side // 5, y0 + side // 2, square[0] + side * 2 // 5,
                               y0 + side * 3 // 4, square[2] - side // 5, y0 + side // 4),
                              fill=(255, 255, 255), width=5)
                self._text(draw, (square[2] + side // 2, box[1], box[2], box[3]), view.text,
                           st.get("size", 40), st.get("fg", (0, 0, 0)), False, "left")
            case "glyph" | "image" | "icon":
                self._glyph(draw, view, box)
            case "spinner":
                self._spinner(draw, box, st.get("phase", 0))
            case "seekbar":
                x0, y0, x1, y1 = box
                cy = (y0 + y1) // 2
                pos = x0 + (x1 - x0) * st.get("value", 0) // 100
                draw.rounded_rectangle((x0, cy - 6, x1, cy + 6), radius=6, fill=(200, 202, 208))
                draw.rounded_rectangle((x0, cy - 6, pos, cy + 6), radius=6, fill=CARET)
                draw.ellipse((pos - 18, cy - 18, pos + 18, cy + 18), fill=CARET)
            case "launcher_icon":
                self._launcher_icon(draw, view, box)

    def _text(self, draw: ImageDraw.ImageDraw, box: Bounds, text: str, size: int,
              fill, bold: bool, align: str, valign: str = "center") -> None:
        if not text:
            return
        x0, y0, x1, y1 = box
        lines = text.split("\n")
        line_h = int(size * 1.35)
        total = line_h * len(lines)
        y = y0 + max(0, (y1 - y0 - total) // 2) if valign == "center" else y0
        for line in lines:
            if y + line_h > y1 + line_h // 2:
                break
            width = _measure(line, size, bold)
            if align == "center":
                x = x0 + max(0, (x1 - x0 - width) // 2)
            elif align == "right":
                x = max(x0, x1 - width)
            else:
                x = x0
            _draw_runs(draw, (x, y), line, size, fill, bold, limit=x1)
            y += line_h

    def _edit(self, img: Image.Image, view: View, box: Bounds) -> None:
        """A text field: frame, then its text on a layer clipped to the field, scrolled so the
        end of the text (where the caret is) stays visible, as a real EditText does."""
        st = view.style
        x0, y0, x1, y1 = box
        draw = ImageDraw.Draw(img)
        line = (33, 99, 235) if view.focused else (170, 172, 180)
        draw.rounded_rectangle(box, radius=12, fill=(255, 255, 255), outline=line,
                               width=4 if view.focused else 2)
        size = st.get("size", 44)
        pad = size // 2
        inner = (x0 + pad, y0 + pad // 2, x1 - pad, y1 - pad // 2)
        w, h = inner[2] - inner[0], inner[3] - inner[1]
        if w <= 0 or h <= 0:
            return
        color = (150, 152, 160) if st.get("hint") else (20, 20, 24)
        line_h = int(size * 1.35)
        if st.get("multiline"):
            lines = _wrap(view.text, size, w - 6)
            lines = lines[-max(1, h // line_h):]  # keep the caret's lines in view
            y = 0
        else:
            lines = [view.text.replace("\n", " ")]
            y = max(0, (h - line_h) // 2)
        layer = img.crop(inner)
        ldraw = ImageDraw.Draw(layer)
        last_w = _measure(lines[-1], size, False)
        x = min(0, w - 6 - last_w) if not st.get("multiline") else 0
        for i, text in enumerate(lines):
            _draw_runs(ldraw, (x, y + i * line_h), text, size, color, False)
        if view.focused and self.caret_visible:
            cx = 0 if st.get("hint") else x + last_w + 2
            cy = y + (len(lines) - 1) * line_h if not st.get("hint") else y
            ldraw.rectangle((cx, cy + 4, cx + 3, cy + int(size * 1.3)), fill=CARET)
        img.paste(layer, inner[:2])

    @staticmethod
    def _switch(draw: ImageDraw.ImageDraw, box: Bounds, checked: bool) -> None:
        x0, y0, x1, y1 = box
        h = min(y1 - y0, 64)
        w = min(x1 - x0, 2 * h)
        tx0 = x1 - w
        ty0 = (y0 + y1 - h) // 2
        track = (33, 99, 235) if checked else (190, 192, 198)
        draw.rounded_rectangle((tx0, ty0, tx0 + w, ty0 + h), radius=h // 2, fill=track)
        r = h // 2 - 6
        cx = tx0 + w - h // 2 if checked else tx0 + h // 2
        cy = ty0 + h // 2
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=(255, 255, 255))

    @staticmethod
    def _glyph(draw: ImageDraw.ImageDraw, view: View, box: Bounds) -> None:
        st = view.style
        x0, y0, x1, y1 = box
        if view.kind == "icon":
            side = min(x1 - x0, y1 - y0)
            ix0 = (x0 + x1 - side) // 2
            draw.rounded_rectangle((ix0, y0, ix0 + side, y0 + side), radius=side // 4,
                                   fill=st.get("bg", (120, 120, 120)))
            x1, y1, x0 = ix0 + side, y0 + side, ix0
        elif view.kind == "image" and st.get("bg") is not None:
            draw.rounded_rectangle(box, radius=st.get("radius", 0), fill=st["bg"])
        glyph = st.get("glyph", "")
        if glyph:
            size = max(12, int((y1 - y0) * 0.5))
            width = _measure(glyph, size, True)
            gx = x0 + (x1 - x0 - width) // 2
            gy = y0 + (y1 - y0 - int(size * 1.35)) // 2
            _draw_runs(draw, (gx, gy), glyph, size, st.get("fg", (255, 255, 255)), True)

    def _launcher_icon(self, draw: ImageDraw.ImageDraw, view: View, box: Bounds) -> None:
        x0, y0, x1, y1 = box
        st = view.style
        side = min(x1 - x0, (y1 - y0)) * 3 // 5
        ix0, iy0 = (x0 + x1 - side) // 2, y0 + (y1 - y0) // 12
        draw.rounded_rectangle((ix0, iy0, ix0 + side, iy0 + side), radius=side // 4,
                               fill=st.get("bg", (120, 120, 120)))
        gsize = side // 2
        gw = _measure(st.get("glyph", ""), gsize, True)
        _draw_runs(draw, (ix0 + (side - gw) // 2, iy0 + (side - int(gsize * 1.35)) // 2),
                   st.get("glyph", ""), gsize, (255, 255, 255), True)
        self._text(draw, (x0, iy0 + side + 8, x1, y1), view.text, st.get("size", 36),
                   (255, 255, 255), False, "center")

    @staticmethod
    def _spinner(draw: ImageDraw.ImageDraw, box: Bounds, phase: int) -> None:
        x0, y0, x1, y1 = box
        start = (phase * 45) % 360
        draw.arc(box, start=start, end=start + 270, fill=(33, 99, 235),
                 width=max(4, (x1 - x0) // 10))


def _dim(color, enabled: bool):
    if enabled:
        return color
    return tuple(int(c * 0.45 + 255 * 0.55) for c in color[:3])


def _wrap(text: str, size: int, width: int) -> list[str]:
    """Greedy wrap by characters (works for CJK and for long Latin words alike)."""
    out: list[str] = []
    for para in text.split("\n"):
        current, used = "", 0
        for ch in para:
            w = _measure(ch, size, False)
            if current and used + w > width:
                out.append(current)
                current, used = ch, w
            else:
                current, used = current + ch, used + w
        out.append(current)
    return out


def _measure(text: str, size: int, bold: bool) -> int:
    total = 0.0
    for chunk, emo in fonts.runs(text):
        font = fonts.emoji_font(size) if emo else fonts.text_font(size, bold)
        total += font.getlength(chunk)
    return int(total)


def _draw_runs(draw: ImageDraw.ImageDraw, xy: tuple[int, int], text: str, size: int, fill,
               bold: bool, limit: int | None = None) -> None:
    x, y = xy
    for chunk, emo in fonts.runs(text):
        font = fonts.emoji_font(size) if emo else fonts.text_font(size, bold)
        draw.text((x, y), chunk, font=font, fill=fill)
        x += int(font.getlength(chunk))
        if limit is not None and x > limit:
            break
