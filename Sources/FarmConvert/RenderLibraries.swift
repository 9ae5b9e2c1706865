import CFarmRenderLoader

/// poppler and cairo are loaded on their first call (CFarmRenderLoader). Whatever needs them asks
/// here first, so a machine without them fails that conversion with the reason instead of aborting.
public enum RenderLibraries {
    public static func require() throws(ConvertError) {
        if let why = cfarm_render_load() { throw ConvertError(.librariesMissing, String(cString: why)) }
    }
}
