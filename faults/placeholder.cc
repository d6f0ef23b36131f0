// Placeholder translation unit so the folder library links before its code lands.
